/**
 * Who holds each signed authorization an order or a pledge carries (docs/decisions/0067): one row
 * per (network, asset, wallet, nonce) — its primary key, so the database lets one holder in — with
 * its holder (a payment between its claim and its application, then the order or the pledge).
 * `asset` is the stablecoin's symbol for a limit buy's or a pledge's USDC, the token's id for a
 * sell order's tokens; wallet and nonce lower-cased. The OPEN and EXECUTING orders and the PLEDGED
 * pledges of an older version take their rows here, the first of any two that share one.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0023HeldAuthorizations extends Migration {
  override async up(): Promise<void> {
    const pg = this.driver.constructor.name === 'PostgreSqlDriver';
    const field = (column: string, name: string) => (pg ? `(${column}::json ->> '${name}')` : `json_extract(${column}, '$.${name}')`);
    this.addSql(`create table held_authorizations (
      network text not null,
      asset text not null,
      wallet text not null,
      nonce text not null,
      holder_kind text not null,
      holder_id text not null,
      primary key (network, asset, wallet, nonce)
    )`);
    this.addSql(`insert into held_authorizations (network, asset, wallet, nonce, holder_kind, holder_id)
      select network, case when kind = 'limit_buy' then coalesce(asset, 'USDC') else token_id end,
             lower(${field('signed_authorization', 'from')}), lower(${field('signed_authorization', 'nonce')}), 'order', order_id
      from orders where state in ('OPEN', 'EXECUTING') order by created_at, order_id
      on conflict (network, asset, wallet, nonce) do nothing`);
    this.addSql(`insert into held_authorizations (network, asset, wallet, nonce, holder_kind, holder_id)
      select network, coalesce(${field('authorization_json', 'asset')}, 'USDC'),
             lower(${field('authorization_json', 'from')}), lower(${field('authorization_json', 'nonce')}), 'pledge', pledge_id
      from pledges where state = 'PLEDGED' order by created_at, pledge_id
      on conflict (network, asset, wallet, nonce) do nothing`);
  }
}
