/**
 * One signer per key across the processes that share a database (docs/decisions/0031): a lock
 * per signing address, held by one live process and released by the database the moment that
 * process's session ends — a graceful stop, a crash, a kill -9 or a lost connection alike.
 *
 * A store that only one process can use (SQLite, memory) needs nothing more than a lock that
 * every caller of that one process gets.
 */
export interface SignerLocks {
  /** Takes the lock of `address` now if no other live process holds it; false when one does. */
  tryAcquire(address: string): Promise<boolean>;
  /** Whether this process still holds the lock of `address` (false once its session is lost). */
  holds(address: string): boolean;
  /** Who holds the lock of `address`, for an operator ("pid 4242 on api-2"); null when nobody or unknown. */
  holder(address: string): Promise<string | null>;
  /**
   * `listener` runs when another process has asked custody's signer to sign (an intent
   * committed); returns the unsubscribe function. A store without notifications never calls it:
   * the signer then finds intents on its worker passes.
   */
  onIntent(listener: () => void): () => void;
  close(): Promise<void>;
}
