/**
 * Orders that wait (docs/api.md "Orders", decision 0047): one row per order with its held
 * authorization (JSON text), its state moved by compare-and-set. Money and prices are exact
 * (numeric(78,0) / TEXT): a trigger is USD per token × 10^18.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0016Orders extends Migration {
  override async up(): Promise<void> {
    const pg = this.driver.constructor.name === 'PostgreSqlDriver';
    const int64 = pg ? 'bigint' : 'integer';
    const money = pg ? 'numeric(78,0)' : 'text';
    this.addSql(`create table orders (
      order_id text primary key,
      network text not null,
      token_id text not null,
      wallet text not null,
      wallet_lower text not null,
      kind text not null,
      trigger_price ${money} not null,
      usd_amount ${money},
      tokens ${money},
      min_tokens_out ${money},
      min_usd_out ${money},
      asset text,
      signed_authorization text not null,
      expires_at ${int64} not null,
      state text not null,
      reason text,
      trade_id text,
      payment_id text,
      created_at ${int64} not null,
      updated_at ${int64} not null
    )`);
    this.addSql(`create index orders_token_state on orders (token_id, state)`);
    this.addSql(`create index orders_wallet on orders (wallet_lower, created_at)`);
    this.addSql(`create index orders_open_expiry on orders (expires_at) where state = 'OPEN'`);
    this.addSql(`create index orders_executing on orders (created_at) where state = 'EXECUTING'`);
  }
}
