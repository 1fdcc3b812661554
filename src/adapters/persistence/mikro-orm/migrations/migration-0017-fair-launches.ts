/**
 * Fair launches (docs/api.md "Fair launches", decision 0048): when each token started trading
 * (its creation for every token before this version; null while a fair launch's raise has not
 * settled), the raises, and the pledges — each with the USDC authorization the service holds.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0017FairLaunches extends Migration {
  override async up(): Promise<void> {
    const pg = this.driver.constructor.name === 'PostgreSqlDriver';
    const money = pg ? 'numeric(78,0)' : 'text';
    const ts = pg ? 'bigint' : 'integer';
    for (const sql of [
      `alter table tokens add column trading_since ${ts}`,
      `update tokens set trading_since = created_at`,
      `create table raises (
        token_id text primary key,
        network text not null,
        state text not null,
        goal_usd ${money} not null,
        max_per_wallet_usd ${money},
        ends_at ${ts} not null,
        collected_usd ${money} not null,
        tokens_bought ${money} not null,
        remainder_tokens ${money} not null,
        trade_id text,
        failure text,
        created_at ${ts} not null,
        updated_at ${ts} not null
      )`,
      `create index raises_due on raises (state, ends_at)`,
      `create table pledges (
        pledge_id text primary key,
        token_id text not null,
        network text not null,
        wallet text not null,
        wallet_lower text not null,
        usd_amount ${money} not null,
        state text not null,
        authorization_json text not null,
        payment_id text,
        tokens ${money} not null,
        drop_reason text,
        payout_id text,
        created_at ${ts} not null,
        updated_at ${ts} not null
      )`,
      `create index pledges_token on pledges (token_id, wallet_lower)`,
    ]) {
      this.addSql(sql);
    }
  }
}
