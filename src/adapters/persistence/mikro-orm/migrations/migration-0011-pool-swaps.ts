/**
 * Custody's swaps on graduated tokens' pools get a table of their own (docs/decisions/0027):
 * before this version each was a row of token_pulls keyed `<payment>:swap`. Those rows move here,
 * keyed by their payment, so a swap a payment already signed is followed, never signed again.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0011PoolSwaps extends Migration {
  override async up(): Promise<void> {
    const pg = this.driver.constructor.name === 'PostgreSqlDriver';
    const ts = pg ? 'bigint' : 'integer';
    const swap = `payment_id like '%:swap'`;
    for (const sql of [
      `create table pool_swaps (
        payment_id text primary key,
        network text not null,
        token_id text not null,
        tx_hash text not null,
        raw_tx text not null,
        created_at ${ts} not null
      )`,
      `insert into pool_swaps (payment_id, network, token_id, tx_hash, raw_tx, created_at)
       select substr(payment_id, 1, length(payment_id) - length(':swap')), network, token_id, tx_hash, raw_tx, created_at from token_pulls where ${swap}`,
      `delete from token_pulls where ${swap}`,
    ]) {
      this.addSql(sql);
    }
  }
}
