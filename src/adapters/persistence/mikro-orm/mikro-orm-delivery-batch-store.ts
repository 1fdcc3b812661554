/** Delivery batches in SQL (table delivery_batches, migration 0015). */
import type { DeliveryBatch, DeliveryBatchState } from '../../../domain/delivery-batch.js';
import type { Network } from '../../../domain/network.js';
import type { DeliveryBatchStore } from '../../../ports/delivery-batch-store.js';
import { ms, type Sql } from './sql.js';
import { Table } from './table.js';

const BATCHES = new Table<DeliveryBatch>(
  'delivery_batches',
  {
    batch_id: (b) => b.batchId,
    network: (b) => b.network,
    state: (b) => b.state,
    tx_hash: (b) => b.txHash,
    raw_tx: (b) => b.rawTx,
    size: (b) => b.size,
    next_attempt_at: (b) => b.nextAttemptAt.getTime(),
    created_at: (b) => b.createdAt.getTime(),
    updated_at: (b) => b.updatedAt.getTime(),
  },
  (r) => ({
    batchId: String(r.batch_id),
    network: r.network as Network,
    state: r.state as DeliveryBatchState,
    txHash: String(r.tx_hash),
    rawTx: String(r.raw_tx),
    size: Number(r.size),
    nextAttemptAt: ms(r.next_attempt_at),
    createdAt: ms(r.created_at),
    updatedAt: ms(r.updated_at),
  }),
);

export class MikroOrmDeliveryBatchStore implements DeliveryBatchStore {
  constructor(private readonly sql: Sql) {}

  async record(b: DeliveryBatch): Promise<void> {
    await this.sql.write(BATCHES.insert, BATCHES.values(b));
  }

  async get(batchId: string): Promise<DeliveryBatch | null> {
    const r = await this.sql.one(`select ${BATCHES.select(this.sql)} from delivery_batches where batch_id = ?`, [batchId]);
    return r ? BATCHES.fromRow(r) : null;
  }

  async update(next: DeliveryBatch, from: DeliveryBatchState): Promise<boolean> {
    const rows = await this.sql.all(
      `update delivery_batches set state = ?, next_attempt_at = ?, updated_at = ? where batch_id = ? and state = ? returning batch_id`,
      [next.state, next.nextAttemptAt.getTime(), next.updatedAt.getTime(), next.batchId, from],
    );
    return rows.length === 1;
  }

  async due(now: Date, limit: number): Promise<DeliveryBatch[]> {
    const rows = await this.sql.all(
      `select ${BATCHES.select(this.sql)} from delivery_batches where state = 'SENT' and next_attempt_at <= ? order by created_at, batch_id limit ?`,
      [now.getTime(), limit],
    );
    return rows.map(BATCHES.fromRow);
  }
}
