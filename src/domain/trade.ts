import type { Network } from './network.js';

export type TradeSide = 'buy' | 'sell';

/** One executed curve trade (SPEC §4). Amounts in smallest units. */
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
  readonly createdAt: Date;
}
