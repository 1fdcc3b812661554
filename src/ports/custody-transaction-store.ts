/**
 * A transaction custody signs for one paid operation and must send at most once (a sell's pull
 * of the seller's tokens, a graduated token's swap on its pool): recorded before it is broadcast,
 * keyed by the operation's payment, so a retry — the request's own, or the reconciler's after a
 * crash — follows the same transaction, never a second one.
 */
export interface CustodyTransaction {
  readonly paymentId: string;
  readonly network: string;
  readonly tokenId: string;
  readonly txHash: string;
  readonly rawTx: string;
  readonly createdAt: Date;
}

export interface CustodyTransactionStore<T extends CustodyTransaction> {
  /** Records the transaction unless the payment has one; returns the one that stands. */
  record(tx: T): Promise<T>;
  get(paymentId: string): Promise<T | null>;
  /**
   * Swaps a transaction that can never be mined (dropped) for a new one, by compare-and-set on
   * the old hash.
   */
  replace(next: T, fromTxHash: string): Promise<boolean>;
}
