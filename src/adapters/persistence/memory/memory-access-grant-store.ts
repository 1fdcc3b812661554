import type { AccessGrantStore } from '../../../ports/access-grant-store.js';
import type { MemoryDatabase, MemoryTx } from './memory-database.js';

const key = (wallet: string, resource: string) => `${wallet.toLowerCase()}|${resource}`;

export class MemoryAccessGrantStore implements AccessGrantStore {
  constructor(
    private readonly db: MemoryDatabase,
    private readonly tx: MemoryTx | null,
  ) {}

  async grant(wallet: string, resource: string, until: Date): Promise<void> {
    const current = this.db.accessGrants.get(key(wallet, resource));
    if (!current || current < until) this.db.set(this.tx, this.db.accessGrants, key(wallet, resource), until);
  }

  async validUntil(wallet: string, resource: string, now: Date): Promise<Date | null> {
    const until = this.db.accessGrants.get(key(wallet, resource));
    return until && until > now ? until : null;
  }

  async purgeExpired(before: Date, limit: number): Promise<number> {
    const expired = [...this.db.accessGrants].filter(([, at]) => at < before).sort(([, a], [, b]) => a.getTime() - b.getTime()).slice(0, limit);
    for (const [k] of expired) this.db.delete(this.tx, this.db.accessGrants, k);
    return expired.length;
  }
}
