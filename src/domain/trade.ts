import type { Network } from './network.js';

export type TradeSide = 'buy' | 'sell';
/** Where a trade executed: the token's curve, or its Uniswap v2 pool after graduation (docs/api.md "Graduation"). */
export type VenueName = 'curve' | 'uniswap-v2';

/** One executed trade, on the curve or the pool. Amounts in smallest units. */
export interface Trade {
  readonly tradeId: string;
  readonly network: Network;
  readonly tokenId: string;
  readonly wallet: string;
  readonly side: TradeSide;
  /** Gross USD: paid in on a buy (fee included), taken out of the curve on a sell (fee included). */
  readonly usdAmount: bigint;
  readonly feeUsd: bigint;
  readonly tokenAmount: bigint;
  readonly paymentId: string | null;
  readonly settlementTx: string | null;
  readonly venue: VenueName;
  readonly createdAt: Date;
}
