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

/**
 * The USD that moved through the venue, without the service's fee: a buy's payment less the fee,
 * a sell's gross (the fee comes out of the seller's proceeds). Over the tokens, the trade's
 * execution price — what the chart plots, whatever the launch fee was (decision 0045).
 */
export function venueUsd(t: Pick<Trade, 'side' | 'usdAmount' | 'feeUsd'>): bigint {
  return t.side === 'buy' ? t.usdAmount - t.feeUsd : t.usdAmount;
}
