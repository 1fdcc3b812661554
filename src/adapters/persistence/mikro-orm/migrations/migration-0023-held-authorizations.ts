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
    // One insert in the order they were made, orders and pledges together: of two that share an
    // authorization the older holds it, whichever kind it is.
    this.addSql(`insert into held_authorizations (network, asset, wallet, nonce, holder_kind, holder_id)
      select network, asset, wallet, nonce, holder_kind, holder_id from (
        select network, case when kind = 'limit_buy' then coalesce(asset, 'USDC') else token_id end as asset,
               lower(${field('signed_authorization', 'from')}) as wallet, lower(${field('signed_authorization', 'nonce')}) as nonce,
               'order' as holder_kind, order_id as holder_id, created_at
        from orders where state in ('OPEN', 'EXECUTING')
        union all
        select network, coalesce(${field('authorization_json', 'asset')}, 'USDC') as asset,
               lower(${field('authorization_json', 'from')}) as wallet, lower(${field('authorization_json', 'nonce')}) as nonce,
               'pledge' as holder_kind, pledge_id as holder_id, created_at
        from pledges where state = 'PLEDGED'
      ) as held order by created_at, holder_id
      on conflict (network, asset, wallet, nonce) do nothing`);
  }
}
