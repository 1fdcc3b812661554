import type { CustodyTransaction, CustodyTransactionStore } from './custody-transaction-store.js';

/** Custody's swap on a graduated token's Uniswap v2 pool for one paid buy or sell. */
export type PoolSwap = CustodyTransaction;

export type PoolSwapStore = CustodyTransactionStore<PoolSwap>;
