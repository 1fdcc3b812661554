/**
 * Payment channels of the x402 batch-settlement scheme (docs/payments.md "Pay once, call many"):
 * one row per channel, its books moved by compare-and-set. Amounts are exact (numeric(78,0) /
 * TEXT); the configuration the channel id hashes is JSON text; the payer also lower-cased, for a
 * payer's channels in any letter case.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0028Channels extends Migration {
  override async up(): Promise<void> {
    const pg = this.driver.constructor.name === 'PostgreSqlDriver';
    const int64 = pg ? 'bigint' : 'integer';
    const money = pg ? 'numeric(78,0)' : 'text';
    this.addSql(`create table channels (
      channel_id text primary key,
      network text not null,
      asset text not null,
      payer text not null,
      payer_lower text not null,
      config text not null,
      balance ${money} not null,
      charged ${money} not null,
      signed_max ${money} not null,
      signature text,
      claimed ${money} not null,
      claiming ${money},
      claiming_since ${int64},
      refund_nonce ${money} not null,
      created_at ${int64} not null,
      updated_at ${int64} not null
    )`);
    this.addSql(`create index channels_payer on channels (payer_lower, created_at)`);
    this.addSql(`create index channels_claimable on channels (network, updated_at) where claiming is null`);
    this.addSql(`create index channels_claiming on channels (claiming_since) where claiming is not null`);
  }
}
