/** Custody intents in memory: one per kind and payment, the latest ask standing. */
import type { CustodyIntent, CustodyIntentStore } from '../../../ports/custody-intent-store.js';
import type { MemoryDatabase, MemoryTx } from './memory-database.js';

const keyOf = (i: Pick<CustodyIntent, 'kind' | 'paymentId'>) => `${i.kind}|${i.paymentId}`;

export class MemoryCustodyIntentStore implements CustodyIntentStore {
  constructor(
    private readonly db: MemoryDatabase,
    private readonly tx: MemoryTx | null,
  ) {}

  async request(intent: CustodyIntent): Promise<void> {
    this.db.set(this.tx, this.db.custodyIntents, keyOf(intent), intent);
  }

  async open(limit: number): Promise<CustodyIntent[]> {
    return [...this.db.custodyIntents.values()].sort((a, b) => a.requestedAt.getTime() - b.requestedAt.getTime()).slice(0, limit);
  }

  async answered(intent: CustodyIntent): Promise<boolean> {
    const now = this.db.custodyIntents.get(keyOf(intent));
    if (!now || now.replaces !== intent.replaces || now.requestedAt.getTime() !== intent.requestedAt.getTime()) return false;
    this.db.delete(this.tx, this.db.custodyIntents, keyOf(intent));
    return true;
  }
}
