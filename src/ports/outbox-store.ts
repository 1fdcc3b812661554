import type { OutboxFields, OutboxState } from '../domain/outbox.js';

/**
 * An outbox table: items written in the transaction of what owes them, sent by a worker.
 * Payouts, deliveries and deployments are each one.
 */
export interface OutboxStore<T extends OutboxFields> {
  /** Inserts the item; a second item for the same `sourceId` is not added, the first is returned. */
  enqueue(item: T): Promise<T>;
  /**
   * Inserts an item for a source that has none yet (a trade made in this transaction): nothing
   * is answered back, and an item already there for `sourceId` fails the transaction — at once,
   * or where the store sends a transaction's writes together (decision 0055) at its next
   * statement or its commit.
   */
  add(item: T): Promise<void>;
  get(id: string): Promise<T | null>;
  findBySource(sourceId: string): Promise<T | null>;
  /** Compare-and-set on the state: stores `next` only if the stored state is still `from`. */
  update(next: T, from: OutboxState): Promise<boolean>;
  /**
   * `update` for a move whose loss fails the transaction it is made in (a delivery batch's
   * members): nothing is answered back, and a lost compare-and-set rejects with `lost()` — at
   * once, or where the store sends a transaction's writes together (decision 0055) at its next
   * statement or its commit, which then rolls back.
   */
  move(next: T, from: OutboxState, lost: () => Error): Promise<void>;
  /** PENDING or SENT items whose nextAttemptAt ≤ now, oldest first. */
  due(now: Date, limit: number): Promise<T[]>;
  /** What is not done yet (for the operator's metrics): PENDING and SENT counts, and the oldest such item's creation. */
  backlog(): Promise<OutboxBacklog>;
}

export interface OutboxBacklog {
  pending: number;
  sent: number;
  oldestCreatedAt: Date | null;
}
