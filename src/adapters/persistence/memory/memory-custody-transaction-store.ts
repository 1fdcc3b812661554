/** Any custody transaction table in memory (pulls, swaps): one transaction per payment. */
import { isNotSent, type CustodyTransaction, type CustodyTransactionStore, type NotSent } from '../../../ports/custody-transaction-store.js';
import type { MemoryDatabase, MemoryTx } from './memory-database.js';

export class MemoryCustodyTransactionStore<T extends CustodyTransaction> implements CustodyTransactionStore<T> {
  constructor(
    protected readonly db: MemoryDatabase,
    private readonly tx: MemoryTx | null,
    protected readonly table: Map<string, T | NotSent>,
  ) {}

  async record(item: T | NotSent): Promise<T | NotSent> {
    const existing = this.table.get(item.paymentId);
    if (existing) return existing;
    this.db.set(this.tx, this.table, item.paymentId, item);
    return item;
  }

  refuse(refusal: NotSent): Promise<T | NotSent> {
    return this.record(refusal);
  }

  async get(paymentId: string): Promise<T | NotSent | null> {
    return this.table.get(paymentId) ?? null;
  }

  async replace(next: T, fromTxHash: string): Promise<boolean> {
    const current = this.table.get(next.paymentId);
    if (!current || isNotSent(current) || current.txHash !== fromTxHash) return false;
    this.db.set(this.tx, this.table, next.paymentId, next);
    return true;
  }
}
