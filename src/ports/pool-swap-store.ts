import type { CustodyTransaction, CustodyTransactionStore } from './custody-transaction-store.js';

/**
 * A buy's terms, recorded with its swap (docs/decisions/0061): the gross USD its payment brought,
 * of which the swap swaps all but our fee, and the least tokens it accepts. A copy of the buy that
 * finds the swap recorded books it at these — and signs it again at these, should it be dropped —
 * without pricing the buy again.
 */
export interface BuySwapTerms {
  readonly grossUsd: bigint;
  readonly minTokensOut: bigint;
}

/** Custody's swap on a graduated token's Uniswap v2 pool for one paid buy or sell. */
export interface PoolSwap extends CustodyTransaction {
  /** A buy's terms; absent for a sell, and for a swap recorded before they were kept. */
  readonly buy?: BuySwapTerms | undefined;
}

export type PoolSwapStore = CustodyTransactionStore<PoolSwap>;
