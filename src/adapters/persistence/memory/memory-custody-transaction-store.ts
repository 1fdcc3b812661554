/** Any custody transaction table in memory (pulls, swaps): one transaction per payment. */
import type { CustodyTransaction, CustodyTransactionStore } from '../../../ports/custody-transaction-store.js';
import type { MemoryDatabase, MemoryTx } from './memory-database.js';

export class MemoryCustodyTransactionStore<T extends CustodyTransaction> implements CustodyTransactionStore<T> {
  constructor(
    protected readonly db: MemoryDatabase,
    private readonly tx: MemoryTx | null,
    protected readonly table: Map<string, T>,
  ) {}

  async record(item: T): Promise<T> {
    const existing = this.table.get(item.paymentId);
    if (existing) return existing;
    this.db.set(this.tx, this.table, item.paymentId, item);
    return item;
  }

  async get(paymentId: string): Promise<T | null> {
    return this.table.get(paymentId) ?? null;
  }

  async replace(next: T, fromTxHash: string): Promise<boolean> {
    if (this.table.get(next.paymentId)?.txHash !== fromTxHash) return false;
    this.db.set(this.tx, this.table, next.paymentId, next);
    return true;
  }
}
