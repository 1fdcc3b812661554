/**
 * The catalogue (docs/decisions/0043): every operation, assembled from the rooms that write them —
 * the paid entrypoints and the free reads, each list in the order the manifest, OpenAPI, the MCP
 * tools and llms.txt show it. An operation is written in its room (<room>/catalogue.ts); this file
 * only says where it stands in the lists (one not placed here follows the placed ones).
 */
import type { AnyEntrypoint } from './kit/catalogue/entrypoint.js';
import { earningsReads } from './earnings/index.js';
import { orderReads, placeOrderEntrypoint } from './orders/index.js';
import { paymentReads } from './payments/index.js';
import { commentEntrypoint, commentReads } from './social/index.js';
import { pledgeEntrypoint, raiseReads } from './raises/index.js';
import { tokenEntrypoints, tokenReads } from './tokens/index.js';
import { tradingEntrypoints, tradingReads } from './trading/index.js';

/**
 * `placed` in their order, then every other entry of `rooms`, room by room in each room's own
 * order: an operation a room adds is listed without a line here (give it a place to move it up).
 */
function inOrder<R extends Room[]>(placed: EntryOf<R>[], rooms: [...R]): EntryOf<R>[] {
  const rest = rooms.flatMap((room) => (Array.isArray(room) ? room : Object.values(room))).filter((e) => !placed.includes(e as EntryOf<R>));
  return [...placed, ...(rest as EntryOf<R>[])];
}

/** A room's entries: by operation, or a list. */
type Room = Record<string, object> | readonly object[];
/** Any entry of any of the rooms, each with its own type (the API's types are read from them). */
type EntryOf<R extends Room[]> = { [K in keyof R]: R[K] extends readonly (infer E)[] ? E : R[K][keyof R[K]] }[number];

/** The paid operations, in their order. */
export function entrypoints(): AnyEntrypoint[] {
  const tokens = tokenEntrypoints();
  const trading = tradingEntrypoints();
  const [pledge, order, comment] = [pledgeEntrypoint(), placeOrderEntrypoint(), commentEntrypoint()];
  return inOrder([
    tokens.create,
    trading.buyUsd,
    trading.buyTokens,
    trading.buyQuote,
    trading.sell,
    tokens.info,
    pledge,
    order,
    comment,
    tokens.image,
  ], [tokens, trading, [pledge], [order], [comment]]);
}

/** The free reads, in their order: the order tools are listed in. */
export function reads() {
  const tokens = tokenReads();
  const trading = tradingReads();
  const payments = paymentReads();
  const comments = commentReads();
  const raises = raiseReads();
  const earnings = earningsReads();
  const orders = orderReads();
  return inOrder([
    tokens.list_tokens,
    tokens.get_token,
    trading.list_positions,
    trading.quote,
    payments.prices,
    tokens.list_trades,
    tokens.candles,
    tokens.holders,
    comments.list_comments,
    comments.hide_comment,
    payments.get_payment,
    payments.get_delivery,
    payments.get_payout,
    payments.get_channel,
    trading.sell_authorization,
    raises.get_raise,
    raises.pledge_authorization,
    raises.cancel_pledge,
    earnings.earnings,
    earnings.creators,
    tokens.stats,
    ...orders,
  ], [tokens, trading, payments, comments, raises, earnings, orders]);
}
