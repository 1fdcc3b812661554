import type { Payout, PayoutState } from '../../../domain/payout.js';
import type { PayoutStore } from '../../../ports/payout-store.js';
import type { MemoryDatabase, MemoryTx } from './memory-database.js';

export class MemoryPayoutStore implements PayoutStore {
  constructor(
    private readonly db: MemoryDatabase,
    private readonly tx: MemoryTx | null,
  ) {}

  async enqueue(payout: Payout): Promise<Payout> {
    const existing = this.db.payoutSources.get(payout.sourceId);
    if (existing !== undefined) return this.db.payouts.get(existing)!;
    this.db.set(this.tx, this.db.payoutSources, payout.sourceId, payout.payoutId);
    this.db.set(this.tx, this.db.payouts, payout.payoutId, payout);
    return payout;
  }

  async get(payoutId: string): Promise<Payout | null> {
    return this.db.payouts.get(payoutId) ?? null;
  }

  async update(next: Payout, from: PayoutState): Promise<boolean> {
    const current = this.db.payouts.get(next.payoutId);
    if (!current || current.state !== from) return false;
    this.db.set(this.tx, this.db.payouts, next.payoutId, next);
    return true;
  }

  async due(now: Date, limit: number): Promise<Payout[]> {
    return [...this.db.payouts.values()]
      .filter((p) => (p.state === 'PENDING' || p.state === 'SENT') && p.nextAttemptAt <= now)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.payoutId < b.payoutId ? -1 : 1))
      .slice(0, limit);
  }
}
