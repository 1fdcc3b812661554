import type { AccessGrantStore } from '../../../ports/access-grant-store.js';
import { ms, type Sql } from './sql.js';

export class MikroOrmAccessGrantStore implements AccessGrantStore {
  constructor(private readonly sql: Sql) {}

  async grant(wallet: string, resource: string, until: Date): Promise<void> {
    // One statement, so concurrent grants keep the latest end whatever their order.
    await this.sql.all(
      `insert into access_grants (wallet_lower, resource, expires_at) values (?, ?, ?)
       on conflict (wallet_lower, resource) do update set expires_at = excluded.expires_at
       where access_grants.expires_at < excluded.expires_at returning resource`,
      [wallet.toLowerCase(), resource, until.getTime()],
    );
  }

  async validUntil(wallet: string, resource: string, now: Date): Promise<Date | null> {
    const r = await this.sql.one(`select expires_at from access_grants where wallet_lower = ? and resource = ? and expires_at > ?`, [
      wallet.toLowerCase(),
      resource,
      now.getTime(),
    ]);
    return r ? ms(r.expires_at) : null;
  }

  async purgeExpired(before: Date, limit: number): Promise<number> {
    const rows = await this.sql.all(
      `delete from access_grants where (wallet_lower, resource) in
         (select wallet_lower, resource from access_grants where expires_at < ? order by expires_at limit ?)
       returning resource`,
      [before.getTime(), limit],
    );
    return rows.length;
  }
}
