/**
 * Fee shares earned by creators and referrers (docs/api.md "Fees and earnings"): one row per
 * earner per trade, and the payout that paid it (null while unpaid). USD amounts are micro-units,
 * far below 2^63, so integer columns keep them exact and let the database sum them.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0013Earnings extends Migration {
  override async up(): Promise<void> {
    const pg = this.driver.constructor.name === 'PostgreSqlDriver';
    const int64 = pg ? 'bigint' : 'integer';
    this.addSql(`create table earnings (
      earning_id text primary key,
      network text not null,
      wallet text not null,
      wallet_lower text not null,
      role text not null,
      token_id text not null,
      trade_id text not null,
      amount ${int64} not null,
      created_at ${int64} not null,
      payout_id text
    )`);
    this.addSql(`create index earnings_unpaid on earnings (network, wallet_lower, role) where payout_id is null`);
    this.addSql(`create index earnings_wallet on earnings (wallet_lower)`);
    this.addSql(`create index earnings_token on earnings (token_id, role)`);
  }
}
