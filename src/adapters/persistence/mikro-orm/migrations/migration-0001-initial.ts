/**
 * The schema. Money columns are ExactBigIntType (numeric(78,0) / TEXT); times are epoch
 * milliseconds; JSON is TEXT. Every list the API pages has an index that serves its keyset.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0001Initial extends Migration {
  override async up(): Promise<void> {
    const pg = this.driver.constructor.name === 'PostgreSqlDriver';
    const money = pg ? 'numeric(78,0)' : 'text';
    const ts = pg ? 'bigint' : 'integer';
    const statements = [
      `create table tokens (
        token_id text primary key,
        network text not null,
        name text not null,
        name_lower text not null,
        symbol text not null,
        symbol_lower text not null,
        description text,
        image_url text,
        creator text not null,
        creator_lower text not null,
        state text not null,
        params text not null,
        virtual_usd ${money} not null,
        virtual_tokens ${money} not null,
        tokens_sold ${money} not null,
        market_cap_key text not null,
        created_at ${ts} not null,
        graduated_at ${ts}
      )`,
      `create index tokens_created on tokens (created_at desc, token_id desc)`,
      `create index tokens_market_cap on tokens (market_cap_key desc, token_id desc)`,
      `create index tokens_creator on tokens (creator_lower, created_at desc)`,
      `create index tokens_name on tokens (name_lower)`,
      `create index tokens_symbol on tokens (symbol_lower)`,
      `create table trades (
        trade_id text primary key,
        network text not null,
        token_id text not null,
        wallet text not null,
        side text not null,
        usd_amount ${money} not null,
        fee_usd ${money} not null,
        token_amount ${money} not null,
        payment_id text,
        settlement_tx text,
        created_at ${ts} not null
      )`,
      `create index trades_token on trades (token_id, trade_id desc)`,
      `create index trades_token_time on trades (token_id, created_at)`,
      `create index trades_time on trades (created_at)`,
      `create index trades_network on trades (network)`,
      `create table positions (
        network text not null,
        wallet_lower text not null,
        token_id text not null,
        wallet text not null,
        balance ${money} not null,
        balance_key text not null,
        cost_basis_usd ${money} not null,
        realized_pnl_usd ${money} not null,
        updated_at ${ts} not null,
        primary key (network, wallet_lower, token_id)
      )`,
      `create index positions_holders on positions (token_id, balance_key desc, wallet_lower)`,
      `create table payments (
        payment_id text primary key,
        network text not null,
        payer text not null,
        payer_lower text not null,
        nonce_lower text not null,
        amount ${money} not null,
        resource text not null,
        request_hash text not null,
        input text not null,
        state text not null,
        settlement_tx text,
        valid_before ${money} not null,
        response text,
        created_at ${ts} not null,
        updated_at ${ts} not null
      )`,
      `create unique index payments_authorization on payments (network, payer_lower, nonce_lower)`,
      `create index payments_state on payments (state, updated_at)`,
      `create table payouts (
        payout_id text primary key,
        network text not null,
        wallet text not null,
        amount ${money} not null,
        reason text not null,
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
      `create index payouts_due on payouts (state, next_attempt_at)`,
      `create table quotes (
        quote_id text primary key,
        token_id text not null,
        network text not null,
        side text not null,
        usd_amount ${money} not null,
        tokens ${money} not null,
        min_out ${money} not null,
        fee_usd ${money} not null,
        slippage_bps integer not null,
        provider text not null,
        created_at ${ts} not null,
        expires_at ${ts} not null
      )`,
      `create index quotes_expiry on quotes (expires_at)`,
      `create table quote_holds (hold_key text primary key, quote_id text not null)`,
      `create table events (
        id ${ts} primary key,
        type text not null,
        network text not null,
        token_id text,
        data text not null,
        created_at ${ts} not null
      )`,
      `create index events_token on events (token_id, id)`,
      `create table event_counter (id integer primary key, last_id ${ts} not null)`,
      `insert into event_counter (id, last_id) values (1, 0)`,
    ];
    for (const s of statements) this.addSql(s);
  }
}
