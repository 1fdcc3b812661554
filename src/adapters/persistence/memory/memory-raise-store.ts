/** Fair launches' raises and pledges in memory (the RaiseStore port). */
import type { Pledge, PledgeState, Raise, RaiseState } from '../../../domain/raise.js';
import type { RaiseStore } from '../../../ports/raise-store.js';
import type { MemoryDatabase, MemoryTx } from './memory-database.js';

const byTime = <T extends { createdAt: Date }>(id: (x: T) => string) => (a: T, b: T) => a.createdAt.getTime() - b.createdAt.getTime() || (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0);

export class MemoryRaiseStore implements RaiseStore {
  constructor(
    private readonly db: MemoryDatabase,
    private readonly tx: MemoryTx | null,
  ) {}

  async insert(raise: Raise): Promise<void> {
    if (this.db.raises.has(raise.tokenId)) throw new Error(`raise ${raise.tokenId} exists`);
    this.db.set(this.tx, this.db.raises, raise.tokenId, raise);
  }

  async get(tokenId: string): Promise<Raise | null> {
    return this.db.raises.get(tokenId) ?? null;
  }

  async update(next: Raise, from: RaiseState): Promise<boolean> {
    const current = this.db.raises.get(next.tokenId);
    if (!current || current.state !== from) return false;
    this.db.set(this.tx, this.db.raises, next.tokenId, next);
    return true;
  }

  async due(now: Date, limit: number): Promise<Raise[]> {
    return [...this.db.raises.values()]
      .filter((r) => r.state === 'COLLECTING' || (r.state === 'RAISING' && r.endsAt <= now))
      .sort((a, b) => a.endsAt.getTime() - b.endsAt.getTime() || (a.tokenId < b.tokenId ? -1 : 1))
      .slice(0, limit);
  }

  async countByState(): Promise<Partial<Record<RaiseState, number>>> {
    const counts: Partial<Record<RaiseState, number>> = {};
    for (const r of this.db.raises.values()) counts[r.state] = (counts[r.state] ?? 0) + 1;
    return counts;
  }

  async insertPledge(pledge: Pledge): Promise<void> {
    if (this.db.pledges.has(pledge.pledgeId)) throw new Error(`pledge ${pledge.pledgeId} exists`);
    this.db.set(this.tx, this.db.pledges, pledge.pledgeId, pledge);
  }

  async getPledge(pledgeId: string): Promise<Pledge | null> {
    return this.db.pledges.get(pledgeId) ?? null;
  }

  async pledgesOf(tokenId: string, wallet?: string): Promise<Pledge[]> {
    const w = wallet?.toLowerCase();
    return [...this.db.pledges.values()]
      .filter((p) => p.tokenId === tokenId && (w === undefined || p.wallet.toLowerCase() === w))
      .sort(byTime((p: Pledge) => p.pledgeId));
  }

  async pledgedBy(wallet: string): Promise<Pledge[]> {
    const w = wallet.toLowerCase();
    return [...this.db.pledges.values()].filter((p) => p.state === 'PLEDGED' && p.wallet.toLowerCase() === w).sort(byTime((p: Pledge) => p.pledgeId));
  }

  async updatePledge(next: Pledge, from: PledgeState): Promise<boolean> {
    const current = this.db.pledges.get(next.pledgeId);
    if (!current || current.state !== from) return false;
    this.db.set(this.tx, this.db.pledges, next.pledgeId, next);
    return true;
  }
}
