/** Delivery batches in memory (the DeliveryBatchStore port). */
import type { DeliveryBatch, DeliveryBatchState } from '../../../domain/delivery-batch.js';
import type { DeliveryBatchStore } from '../../../ports/delivery-batch-store.js';
import type { MemoryDatabase, MemoryTx } from './memory-database.js';

export class MemoryDeliveryBatchStore implements DeliveryBatchStore {
  constructor(
    private readonly db: MemoryDatabase,
    private readonly tx: MemoryTx | null,
  ) {}

  async record(batch: DeliveryBatch): Promise<void> {
    if (this.db.deliveryBatches.has(batch.batchId)) throw new Error(`delivery batch ${batch.batchId} exists`);
    this.db.set(this.tx, this.db.deliveryBatches, batch.batchId, batch);
  }

  async get(batchId: string): Promise<DeliveryBatch | null> {
    return this.db.deliveryBatches.get(batchId) ?? null;
  }

  async update(next: DeliveryBatch, from: DeliveryBatchState): Promise<boolean> {
    const current = this.db.deliveryBatches.get(next.batchId);
    if (!current || current.state !== from) return false;
    this.db.set(this.tx, this.db.deliveryBatches, next.batchId, next);
    return true;
  }

  async due(now: Date, limit: number): Promise<DeliveryBatch[]> {
    return [...this.db.deliveryBatches.values()]
      .filter((b) => b.state === 'SENT' && b.nextAttemptAt <= now)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.batchId < b.batchId ? -1 : 1))
      .slice(0, limit);
  }
}
