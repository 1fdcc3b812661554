import type { CustodyTransaction, CustodyTransactionStore } from './custody-transaction-store.js';

/**
 * A buy's terms, recorded with its swap (docs/decisions/0061): the gross USD its payment brought,
 * the USDC the swap was signed to swap (the gross less our fee: what is left of it is the fee
 * custody keeps), and the least tokens it accepts. A copy of the buy that finds the swap recorded
 * books it at these — and signs it again at this gross and bound, should it be dropped — without
 * pricing the buy again. Replaced with the swap's transaction (a swap signed again may swap
 * another amount: the fee in force then).
 */
export interface BuySwapTerms {
  readonly grossUsd: bigint;
  readonly amountIn: bigint;
  readonly minTokensOut: bigint;
}

/** Custody's swap on a graduated token's Uniswap v2 pool for one paid buy or sell. */
export interface PoolSwap extends CustodyTransaction {
  /** A buy's terms; absent for a sell, and for a swap recorded before they were kept. */
  readonly buy?: BuySwapTerms | undefined;
}

export type PoolSwapStore = CustodyTransactionStore<PoolSwap>;
