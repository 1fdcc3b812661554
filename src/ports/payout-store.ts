import type { Payout, PayoutState } from '../domain/payout.js';

/** The payout outbox: rows written in the transaction of the trade or refund that owes them. */
export interface PayoutStore {
  /** Inserts the payout; a second payout for the same `sourceId` is not added, the first is returned. */
  enqueue(payout: Payout): Promise<Payout>;
  get(payoutId: string): Promise<Payout | null>;
  /** Compare-and-set on the state, like PaymentStore.update. */
  update(next: Payout, from: PayoutState): Promise<boolean>;
  /** PENDING or SENT payouts whose nextAttemptAt ≤ now, oldest first. */
  due(now: Date, limit: number): Promise<Payout[]>;
}
