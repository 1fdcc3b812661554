/**
 * Deliveries sent together in one custody transaction (docs/decisions/0035): a table of batches,
 * each with the transaction it was signed as, and on every delivery the batch that carries it
 * while it is SENT in one (null otherwise — every delivery before this version).
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0015DeliveryBatches extends Migration {
  override async up(): Promise<void> {
    const pg = this.driver.constructor.name === 'PostgreSqlDriver';
    const ts = pg ? 'bigint' : 'integer';
    for (const sql of [
      `create table delivery_batches (
        batch_id text primary key,
        network text not null,
        state text not null,
        tx_hash text not null,
        raw_tx text not null,
        size integer not null,
        next_attempt_at ${ts} not null,
        created_at ${ts} not null,
        updated_at ${ts} not null
      )`,
      `create index delivery_batches_due on delivery_batches (state, next_attempt_at)`,
      `alter table deliveries add column batch_id text`,
      `create index deliveries_batch on deliveries (batch_id)`,
    ]) {
      this.addSql(sql);
    }
  }
}
