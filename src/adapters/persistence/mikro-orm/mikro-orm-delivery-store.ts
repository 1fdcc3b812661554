/** The delivery outbox in SQL: an outbox table whose `due` leaves batched deliveries to their batch. */
import type { Delivery } from '../../../domain/delivery.js';
import type { DeliveryStore } from '../../../ports/delivery-store.js';
import { MikroOrmOutboxStore } from './mikro-orm-outbox-store.js';
import { DELIVERIES } from './outbox-tables.js';
import type { Sql } from './sql.js';

export class MikroOrmDeliveryStore extends MikroOrmOutboxStore<Delivery> implements DeliveryStore {
  constructor(sql: Sql) {
    super(sql, DELIVERIES);
  }

  inBatch(batchId: string): Promise<Delivery[]> {
    return this.where('batch_id = ? order by created_at, delivery_id', [batchId]);
  }
}
