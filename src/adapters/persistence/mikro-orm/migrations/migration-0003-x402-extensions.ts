/**
 * The x402 extensions' state (docs/api.md "x402 extensions"): client payment identifiers stored with their payment, spent
 * Sign-In-With-X nonces, and paid-for access grants. The last two expire and are purged by time.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0003X402Extensions extends Migration {
  override async up(): Promise<void> {
    const pg = this.driver.constructor.name === 'PostgreSqlDriver';
    const ts = pg ? 'bigint' : 'integer';
    for (const statement of [
      `create table payment_identifiers (
        id text primary key,
        payer text not null,
        request_hash text not null,
        payment_id text not null references payments (payment_id),
        created_at ${ts} not null
      )`,
      `create index payment_identifiers_payment on payment_identifiers (payment_id)`,
      `create table proof_nonces (
        wallet_lower text not null,
        nonce text not null,
        expires_at ${ts} not null,
        primary key (wallet_lower, nonce)
      )`,
      `create index proof_nonces_expiry on proof_nonces (expires_at)`,
      `create table access_grants (
        wallet_lower text not null,
        resource text not null,
        expires_at ${ts} not null,
        primary key (wallet_lower, resource)
      )`,
      `create index access_grants_expiry on access_grants (expires_at)`,
    ]) {
      this.addSql(statement);
    }
  }
}
