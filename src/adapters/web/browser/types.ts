/**
 * The API's resources as the page reads them (docs/api.md "Resources"): the shapes of the very
 * schemas the service answers with (src/app/schemas.ts), imported as types only — no zod in the
 * bundle. Unknown fields are ignored.
 */
import type { z } from 'zod';
import type { ReadName } from '../../../app/kit/catalogue/read-paths.js';
import type { buyOutput, positionsOutput, quoteOutput, sellAuthorizationOutput, sellOutput } from '../../../app/trading/schemas.js';
import type { candlesOutput, holdersOutput, tokenPageOutput, tradePageOutput } from '../../../app/tokens/schemas.js';
import type { commentOutput, commentPageOutput } from '../../../app/social/schemas.js';
import type { deliveryOutput, positionOutput, tokenOutput, tradeOutput } from '../../../app/kit/output-schemas.js';
import type { paymentOutput, payoutOutput, pricesOutput } from '../../../app/payments/schemas.js';
import type { pledgeAuthorizationOutput, pledgeOutput, raiseOutput } from '../../../app/raises/schemas.js';
import type { orderAuthorizationOutput, orderBookOutput, orderOutput, ordersOutput } from '../../../app/orders/schemas.js';

export type Token = z.output<typeof tokenOutput>;
export type Trade = z.output<typeof tradeOutput>;
export type Candle = z.output<typeof candlesOutput>['items'][number];
export type Holder = z.output<typeof holdersOutput>['items'][number];
export type Position = z.output<typeof positionOutput>;
export type Positions = z.output<typeof positionsOutput>;
export type Delivery = z.output<typeof deliveryOutput>;
export type Payout = z.output<typeof payoutOutput>;
export type BuyResult = z.output<typeof buyOutput>;
export type SellResult = z.output<typeof sellOutput>;
export type CommentView = z.output<typeof commentOutput>;
export type CommentPage = z.output<typeof commentPageOutput>;
export type CommentThread = CommentPage['items'][number];
export type Raise = z.output<typeof raiseOutput>;
export type PledgeResult = z.output<typeof pledgeOutput>;
export type PledgeAuthorization = z.output<typeof pledgeAuthorizationOutput>;
export type Order = z.output<typeof orderOutput>;

export interface Earnings {
  wallet: string;
  accruedUsd: string;
  paidUsd: string;
  pendingUsd: string;
  payoutMinUsd: string;
  items: { network: string; tokenId: string; role: string; accruedUsd: string; paidUsd: string; pendingUsd: string }[];
}

/** Every free read is named, or this does not typecheck. */
type EveryRead<T extends Record<ReadName, unknown>> = T;

/** What each free read answers (src/app/catalogue/reads.ts), by its operation name. */
export type ReadOutputs = EveryRead<{
  list_tokens: z.output<typeof tokenPageOutput>;
  get_token: Token;
  list_positions: Positions;
  quote: z.output<typeof quoteOutput>;
  prices: z.output<typeof pricesOutput>;
  list_trades: z.output<typeof tradePageOutput>;
  candles: z.output<typeof candlesOutput>;
  holders: z.output<typeof holdersOutput>;
  list_comments: CommentPage;
  hide_comment: CommentView;
  get_payment: z.output<typeof paymentOutput>;
  get_delivery: Delivery;
  get_payout: Payout;
  sell_authorization: z.output<typeof sellAuthorizationOutput>;
  earnings: Earnings;
  creators: unknown;
  stats: unknown;
  get_raise: Raise;
  pledge_authorization: PledgeAuthorization;
  cancel_pledge: PledgeResult;
  order_authorization: z.output<typeof orderAuthorizationOutput>;
  list_orders: z.output<typeof ordersOutput>;
  get_order: Order;
  order_book: z.output<typeof orderBookOutput>;
  cancel_order: Order;
}>;

export interface StreamEvent<T = Record<string, unknown>> {
  id: number;
  type: string;
  network: string;
  tokenId: string | null;
  data: T;
  createdAt: string;
}
