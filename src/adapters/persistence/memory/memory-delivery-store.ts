/** The delivery outbox in memory: an outbox whose `due` leaves batched deliveries to their batch. */
import type { Delivery } from '../../../domain/delivery.js';
import type { DeliveryStore } from '../../../ports/delivery-store.js';
import type { MemoryDatabase, MemoryTx } from './memory-database.js';
import { MemoryOutboxStore } from './memory-outbox-store.js';

export class MemoryDeliveryStore extends MemoryOutboxStore<Delivery> implements DeliveryStore {
  constructor(db: MemoryDatabase, tx: MemoryTx | null) {
    super(db, tx, { items: db.deliveries, sources: db.deliverySources, idOf: (d) => d.deliveryId, dueWhen: (d) => d.batchId === null });
  }

  async inBatch(batchId: string): Promise<Delivery[]> {
    return [...this.db.deliveries.values()]
      .filter((d) => d.batchId === batchId)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.deliveryId < b.deliveryId ? -1 : 1));
  }
}
