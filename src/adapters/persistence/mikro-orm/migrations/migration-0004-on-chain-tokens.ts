/**
 * Tokens on chain (docs/api.md "Tokens on chain"): each token's address and deployment, and the outboxes that deploy
 * tokens and deliver them to buyers; the pull of a seller's tokens, recorded before it is sent.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0004OnChainTokens extends Migration {
  override async up(): Promise<void> {
    const pg = this.driver.constructor.name === 'PostgreSqlDriver';
    const money = pg ? 'numeric(78,0)' : 'text';
    const ts = pg ? 'bigint' : 'integer';
    const outbox = `network text not null,
        state text not null,
        tx_hash text,
        raw_tx text,
        source_id text not null unique,
        attempts integer not null,
        next_attempt_at ${ts} not null,
        last_error text,
        created_at ${ts} not null,
        updated_at ${ts} not null`;
    for (const sql of [
      `alter table tokens add column address text`,
      `alter table tokens add column deployment_state text not null default 'PENDING'`,
      `alter table tokens add column deployment_tx text`,
      `alter table tokens add column deployment_block ${money}`,
      `create table deployments (
        deployment_id text primary key,
        token_id text not null,
        address text not null,
        block_number ${money},
        ${outbox}
      )`,
      `create index deployments_due on deployments (state, next_attempt_at)`,
      `create table deliveries (
        delivery_id text primary key,
        token_id text not null,
        wallet text not null,
        amount ${money} not null,
        ${outbox}
      )`,
      `create index deliveries_due on deliveries (state, next_attempt_at)`,
      `create index deliveries_token on deliveries (token_id, state)`,
      `create table token_pulls (
        payment_id text primary key,
        network text not null,
        token_id text not null,
        tx_hash text not null,
        raw_tx text not null,
        created_at ${ts} not null
      )`,
    ]) {
      this.addSql(sql);
    }
  }
}
