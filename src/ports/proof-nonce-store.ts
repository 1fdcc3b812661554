/**
 * Nonces of Sign-In-With-X proofs already accepted (docs/api.md "Sign-In-With-X"): a signed proof is good once, so one
 * seen on the wire cannot be replayed by someone else.
 */
export interface ProofNonceStore {
  /**
   * Records that `wallet` spent `nonce` and answers whether it was the first to: atomic, so of
   * concurrent uses of one proof exactly one is true. Wallets compare in any letter case. The
   * record is kept until `expiresAt`, when the proof stops being valid anyway.
   */
  use(wallet: string, nonce: string, expiresAt: Date): Promise<boolean>;
  /** Forgets up to `limit` nonces that expired before `before`; returns how many. */
  purgeExpired(before: Date, limit: number): Promise<number>;
}
