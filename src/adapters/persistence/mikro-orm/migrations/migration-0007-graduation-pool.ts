/**
 * Graduation → DEX pool (docs/api.md "Graduation and the Uniswap v2 pool"): each token's pool, and the outbox of the transactions that
 * seed it (one row per step per token).
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0007GraduationPool extends Migration {
  override async up(): Promise<void> {
    const pg = this.driver.constructor.name === 'PostgreSqlDriver';
    const money = pg ? 'numeric(78,0)' : 'text';
    const ts = pg ? 'bigint' : 'integer';
    for (const sql of [
      `alter table tokens add column pool_state text`,
      `alter table trades add column venue text not null default 'curve'`,
      `alter table tokens add column pool_address text`,
      `alter table tokens add column pool_tx text`,
      `create table graduations (
        graduation_id text primary key,
        token_id text not null,
        step text not null,
        token_amount ${money} not null,
        usd_amount ${money} not null,
        pair text,
        network text not null,
        state text not null,
        tx_hash text,
        raw_tx text,
        source_id text not null unique,
        attempts integer not null,
        next_attempt_at ${ts} not null,
        last_error text,
        created_at ${ts} not null,
        updated_at ${ts} not null
      )`,
      `create index graduations_due on graduations (state, next_attempt_at)`,
    ]) {
      this.addSql(sql);
    }
  }
}
