/**
 * A second payment asset (docs/pricing.md): a payment records the asset it was made in, its amount in
 * that asset's units, the USD value it is booked at and the held quote that priced it; a payout
 * records the asset it pays back in; asset quotes are held 60 s per (request, network, asset).
 * Rows from before are USDC taken 1:1.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0005PaymentAssets extends Migration {
  override async up(): Promise<void> {
    const pg = this.driver.constructor.name === 'PostgreSqlDriver';
    const money = pg ? 'numeric(78,0)' : 'text';
    const ts = pg ? 'bigint' : 'integer';
    for (const sql of [
      `alter table payments add column asset text not null default 'USDC'`,
      `alter table payments add column usd_value ${money}`,
      `update payments set usd_value = amount`,
      `alter table payments add column quote_id text`,
      `alter table payments add column quote_price text`,
      `alter table payouts add column asset text not null default 'USDC'`,
      `create table asset_quotes (
        hold_key text primary key,
        quote_id text not null unique,
        network text not null,
        asset text not null,
        price text not null,
        provider text not null,
        observed_at ${ts} not null,
        created_at ${ts} not null,
        expires_at ${ts} not null
      )`,
      `create index asset_quotes_expiry on asset_quotes (expires_at)`,
    ]) {
      this.addSql(sql);
    }
  }
}
