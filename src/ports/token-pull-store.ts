/**
 * The pull of a seller's tokens (SPEC §14): custody's receiveWithAuthorization for a sell's
 * payment, recorded before it is broadcast so a retry — the request's own, or the reconciler's
 * after a crash — sends the same transaction again, never a second one.
 */
export interface TokenPull {
  readonly paymentId: string;
  readonly network: string;
  readonly tokenId: string;
  readonly txHash: string;
  readonly rawTx: string;
  readonly createdAt: Date;
}

export interface TokenPullStore {
  /** Records the pull unless the payment has one; returns the one that stands. */
  record(pull: TokenPull): Promise<TokenPull>;
  get(paymentId: string): Promise<TokenPull | null>;
  /** The pull whose (current) transaction is `txHash` on `network`, if any. */
  byTransaction(network: string, txHash: string): Promise<TokenPull | null>;
  /**
   * Swaps a pull whose transaction can never be mined (dropped) for a new one, by compare-and-set
   * on the old hash.
   */
  replace(next: TokenPull, fromTxHash: string): Promise<boolean>;
}
