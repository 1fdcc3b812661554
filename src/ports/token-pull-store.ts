import type { CustodyTransaction, CustodyTransactionStore } from './custody-transaction-store.js';

/** The pull of a seller's tokens: custody's receiveWithAuthorization for a sell's payment. */
export type TokenPull = CustodyTransaction;

export interface TokenPullStore extends CustodyTransactionStore<TokenPull> {
  /** The pull whose (current) transaction is `txHash` on `network`, if any. */
  byTransaction(network: string, txHash: string): Promise<TokenPull | null>;
}
