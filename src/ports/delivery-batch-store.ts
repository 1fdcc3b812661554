import type { DeliveryBatch, DeliveryBatchState } from '../domain/delivery-batch.js';

/**
 * Batches of deliveries sent as one custody transaction (src/domain/delivery-batch.ts): recorded
 * with their signed transaction in the same database transaction that moves their deliveries to
 * SENT, before the broadcast.
 */
export interface DeliveryBatchStore {
  /** Inserts a new batch (its id is new). */
  record(batch: DeliveryBatch): Promise<void>;
  get(batchId: string): Promise<DeliveryBatch | null>;
  /** Compare-and-set on the state: stores `next` only if the stored state is still `from`. */
  update(next: DeliveryBatch, from: DeliveryBatchState): Promise<boolean>;
  /** SENT batches whose nextAttemptAt ≤ now, oldest first. */
  due(now: Date, limit: number): Promise<DeliveryBatch[]>;
}
