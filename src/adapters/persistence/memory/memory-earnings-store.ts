import type { Earning } from '../../../domain/earnings.js';
import type { FeeRole } from '../../../domain/fees.js';
import type { Network } from '../../../domain/network.js';
import type { CreatorEarnings, EarningsLine, EarningsStore, UnpaidEarnings } from '../../../ports/earnings-store.js';
import type { MemoryDatabase, MemoryTx } from './memory-database.js';

const lower = (a: string) => a.toLowerCase();

export class MemoryEarningsStore implements EarningsStore {
  constructor(
    private readonly db: MemoryDatabase,
    private readonly tx: MemoryTx | null,
  ) {}

  async accrue(earnings: readonly Earning[]): Promise<void> {
    for (const e of earnings) this.db.set(this.tx, this.db.earnings, e.earningId, e);
  }

  async unpaid(roles: readonly FeeRole[], atLeast: bigint, limit: number): Promise<UnpaidEarnings[]> {
    const sums = new Map<string, UnpaidEarnings>();
    for (const e of this.db.earnings.values()) {
      if (e.payoutId !== null || !roles.includes(e.role)) continue;
      const key = `${e.network}|${lower(e.wallet)}`;
      const had = sums.get(key);
      sums.set(key, { network: e.network, wallet: had?.wallet ?? e.wallet, roles, amount: (had?.amount ?? 0n) + e.amount });
    }
    return [...sums.values()].filter((u) => u.amount >= atLeast).slice(0, limit);
  }

  async claimUnpaid(network: Network, wallet: string, roles: readonly FeeRole[], payoutId: string): Promise<bigint> {
    let sum = 0n;
    for (const e of [...this.db.earnings.values()]) {
      if (e.payoutId !== null || e.network !== network || lower(e.wallet) !== lower(wallet) || !roles.includes(e.role)) continue;
      this.db.set(this.tx, this.db.earnings, e.earningId, { ...e, payoutId });
      sum += e.amount;
    }
    return sum;
  }

  async ofWallet(wallet: string): Promise<EarningsLine[]> {
    const lines = new Map<string, { network: Network; tokenId: string; role: FeeRole; accrued: bigint; paid: bigint }>();
    for (const e of this.db.earnings.values()) {
      if (lower(e.wallet) !== lower(wallet)) continue;
      const key = `${e.network}|${e.tokenId}|${e.role}`;
      const line = lines.get(key) ?? { network: e.network, tokenId: e.tokenId, role: e.role, accrued: 0n, paid: 0n };
      line.accrued += e.amount;
      if (e.payoutId !== null && this.db.payouts.get(e.payoutId)?.state === 'CONFIRMED') line.paid += e.amount;
      lines.set(key, line);
    }
    return [...lines.values()].sort((a, b) => (a.tokenId < b.tokenId ? -1 : a.tokenId > b.tokenId ? 1 : a.role < b.role ? -1 : 1));
  }

  async creatorTotals(tokenIds: readonly string[]): Promise<Map<string, bigint>> {
    const totals = new Map<string, bigint>(tokenIds.map((id) => [id, 0n]));
    for (const e of this.db.earnings.values()) {
      if (e.role === 'creator' && totals.has(e.tokenId)) totals.set(e.tokenId, totals.get(e.tokenId)! + e.amount);
    }
    return totals;
  }

  async topCreators(limit: number): Promise<CreatorEarnings[]> {
    const by = new Map<string, { wallet: string; accrued: bigint; tokens: Set<string> }>();
    for (const e of this.db.earnings.values()) {
      if (e.role !== 'creator') continue;
      const c = by.get(lower(e.wallet)) ?? { wallet: e.wallet, accrued: 0n, tokens: new Set<string>() };
      c.accrued += e.amount;
      c.tokens.add(e.tokenId);
      by.set(lower(e.wallet), c);
    }
    return [...by.values()]
      .sort((a, b) => (a.accrued === b.accrued ? (lower(a.wallet) < lower(b.wallet) ? -1 : 1) : a.accrued > b.accrued ? -1 : 1))
      .slice(0, limit)
      .map((c) => ({ wallet: c.wallet, accrued: c.accrued, tokens: c.tokens.size }));
  }
}
