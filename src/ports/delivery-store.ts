import type { Delivery } from '../domain/delivery.js';
import type { OutboxStore } from './outbox-store.js';

/**
 * The delivery outbox: tokens owed to buyers, written in the transaction of the buy. Its `due`
 * leaves out deliveries SENT in a batch: their batch (DeliveryBatchStore) is followed instead.
 */
export interface DeliveryStore extends OutboxStore<Delivery> {
  /** The deliveries a batch carries (those whose `batchId` it is), oldest first. */
  inBatch(batchId: string): Promise<Delivery[]>;
}
