/**
 * Held authorizations (migration 0023): one row per (network, asset, wallet, nonce), its primary
 * key — so of two transactions inserting one, the database lets one in (PostgreSQL makes the
 * second wait for the first's commit, then inserts nothing). A take from a holder is an update
 * guarded by that holder: on PostgreSQL a second taker waits for the first's row lock, then finds
 * the row changed and updates nothing.
 */
import type { HeldAuthorizationKey, HeldAuthorizationStore, Holder } from '../../../ports/held-authorization-store.js';
import type { Sql } from './sql.js';

const WHERE = 'network = ? and asset = ? and wallet = ? and nonce = ?';
const keyParams = (k: HeldAuthorizationKey) => [k.network, k.asset, k.wallet, k.nonce];

export class MikroOrmHeldAuthorizationStore implements HeldAuthorizationStore {
  constructor(private readonly sql: Sql) {}

  async holderOf(key: HeldAuthorizationKey): Promise<Holder | null> {
    const row = await this.sql.one(`select holder_kind, holder_id from held_authorizations where ${WHERE}`, keyParams(key));
    return row ? { kind: String(row.holder_kind) as Holder['kind'], id: String(row.holder_id) } : null;
  }

  async take(key: HeldAuthorizationKey, holder: Holder, expected: Holder | null): Promise<boolean> {
    const rows = expected
      ? await this.sql.all(
          `update held_authorizations set holder_kind = ?, holder_id = ?
           where ${WHERE} and holder_kind = ? and holder_id = ? returning holder_id`,
          [holder.kind, holder.id, ...keyParams(key), expected.kind, expected.id],
        )
      : await this.sql.all(
          `insert into held_authorizations (network, asset, wallet, nonce, holder_kind, holder_id) values (?, ?, ?, ?, ?, ?)
           on conflict (network, asset, wallet, nonce) do nothing returning holder_id`,
          [...keyParams(key), holder.kind, holder.id],
        );
    return rows.length === 1;
  }
}
