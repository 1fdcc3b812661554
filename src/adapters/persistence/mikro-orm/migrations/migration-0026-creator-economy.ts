/**
 * Creator splits and vested dev buys (docs/api.md "Fees and earnings", decisions 0078 and 0079):
 * the wallets a token's creator share is split among (null: the creator alone), and a dev buy's
 * vesting — its fixed terms as JSON, what is released so far, how many releases (the next
 * release's compare-and-set) and when a worker pass looks at it next (indexed: the pass's query).
 * A token's fee mode lives in its `params` with the rest fixed at creation: nothing to migrate.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0026CreatorEconomy extends Migration {
  override async up(): Promise<void> {
    const pg = this.driver.constructor.name === 'PostgreSqlDriver';
    const money = pg ? 'numeric(78,0)' : 'text';
    const ts = pg ? 'bigint' : 'integer';
    for (const sql of [
      `alter table tokens add column creator_splits text`,
      `alter table tokens add column vesting text`,
      `alter table tokens add column vesting_released ${money}`,
      `alter table tokens add column vesting_releases integer`,
      `alter table tokens add column vesting_next_at ${ts}`,
      `create index tokens_vesting_due on tokens (vesting_next_at) where vesting_next_at is not null`,
    ]) {
      this.addSql(sql);
    }
  }
}
