/**
 * Signer locks for a store only one process uses (SQLite, memory): a lock is held by one holder
 * at a time among those that share a `MemorySignerLockTable` — the process itself by default, or
 * several "processes" of one test sharing a memory database. `drop` lets a test end a holder as a
 * crash would.
 */
import type { SignerLocks } from '../../../ports/signer-locks.js';

/** The locks' owners by lower-case address: what a database's lock table would hold. */
export class MemorySignerLockTable {
  readonly owners = new Map<string, MemorySignerLocks>();
  /** Listeners of every holder, told when an intent is asked (`notifyIntent`). */
  readonly intentListeners = new Set<() => void>();

  notifyIntent(): void {
    for (const l of [...this.intentListeners]) l();
  }
}

export class MemorySignerLocks implements SignerLocks {
  constructor(
    private readonly table: MemorySignerLockTable = new MemorySignerLockTable(),
    /** How `holder` names this one. */
    private readonly name = 'this process',
  ) {}

  async tryAcquire(address: string): Promise<boolean> {
    const owner = this.table.owners.get(address.toLowerCase());
    if (owner && owner !== this) return false;
    this.table.owners.set(address.toLowerCase(), this);
    return true;
  }

  holds(address: string): boolean {
    return this.table.owners.get(address.toLowerCase()) === this;
  }

  async holder(address: string): Promise<string | null> {
    return this.table.owners.get(address.toLowerCase())?.name ?? null;
  }

  onIntent(listener: () => void): () => void {
    const l = () => listener();
    this.table.intentListeners.add(l);
    return () => this.table.intentListeners.delete(l);
  }

  /** Every lock of this holder goes, as when its process dies. */
  drop(): void {
    for (const [address, owner] of this.table.owners) if (owner === this) this.table.owners.delete(address);
  }

  async close(): Promise<void> {
    this.drop();
  }
}
