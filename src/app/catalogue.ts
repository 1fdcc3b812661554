/**
 * The catalogue (docs/decisions/0043): every operation, assembled from the rooms that write them —
 * the paid entrypoints and the free reads, each list in the order the manifest, OpenAPI, the MCP
 * tools and llms.txt show it. An operation is written in its room (<room>/catalogue.ts); this file
 * only says where it stands in the lists.
 */
import type { AnyEntrypoint } from './kit/catalogue/entrypoint.js';
import { earningsReads } from './earnings/index.js';
import { orderReads, placeOrderEntrypoint } from './orders/index.js';
import { paymentReads } from './payments/index.js';
import { commentEntrypoint, commentReads } from './social/index.js';
import { pledgeEntrypoint, raiseReads } from './raises/index.js';
import { tokenEntrypoints, tokenReads } from './tokens/index.js';
import { tradingEntrypoints, tradingReads } from './trading/index.js';

/** The paid operations, in their order. */
export function entrypoints(): AnyEntrypoint[] {
  const tokens = tokenEntrypoints();
  const trading = tradingEntrypoints();
  return [
    tokens.create,
    trading.buyUsd,
    trading.buyTokens,
    trading.buyQuote,
    trading.sell,
    tokens.info,
    pledgeEntrypoint(),
    placeOrderEntrypoint(),
    commentEntrypoint(),
    tokens.image,
  ];
}

/** The free reads, in their order: the order tools are listed in. */
export function reads() {
  const tokens = tokenReads();
  const trading = tradingReads();
  const payments = paymentReads();
  const comments = commentReads();
  const raises = raiseReads();
  const earnings = earningsReads();
  return [
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
    trading.sell_authorization,
    raises.get_raise,
    raises.pledge_authorization,
    raises.cancel_pledge,
    earnings.earnings,
    earnings.creators,
    tokens.stats,
    ...orderReads(),
  ];
}
