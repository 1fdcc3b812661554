/** Custody intents (migration 0014): one row per kind and payment, the latest ask standing. */
import type { Network } from '../../../domain/network.js';
import type { CustodyIntent, CustodyIntentKind, CustodyIntentStore } from '../../../ports/custody-intent-store.js';
import { ms, type Row, type Sql } from './sql.js';

const COLUMNS = 'kind, payment_id, network, token_id, request, replaces, requested_at';

const readRow = (r: Row): CustodyIntent => ({
  kind: String(r.kind) as CustodyIntentKind,
  paymentId: String(r.payment_id),
  network: String(r.network) as Network,
  tokenId: String(r.token_id),
  request: String(r.request),
  replaces: r.replaces === null || r.replaces === undefined ? null : String(r.replaces),
  requestedAt: ms(r.requested_at),
});

export class MikroOrmCustodyIntentStore implements CustodyIntentStore {
  constructor(private readonly sql: Sql) {}

  async request(i: CustodyIntent): Promise<void> {
    await this.sql.all(
      `insert into custody_intents (${COLUMNS}) values (?, ?, ?, ?, ?, ?, ?)
       on conflict (kind, payment_id) do update set request = excluded.request, replaces = excluded.replaces, requested_at = excluded.requested_at
       returning payment_id`,
      [i.kind, i.paymentId, i.network, i.tokenId, i.request, i.replaces, i.requestedAt.getTime()],
    );
  }

  async open(limit: number): Promise<CustodyIntent[]> {
    return (await this.sql.all(`select ${COLUMNS} from custody_intents order by requested_at, payment_id limit ?`, [limit])).map(readRow);
  }

  async answered(i: CustodyIntent): Promise<boolean> {
    const rows = await this.sql.all(
      `delete from custody_intents where kind = ? and payment_id = ? and requested_at = ? and ${i.replaces === null ? 'replaces is null' : 'replaces = ?'} returning payment_id`,
      [i.kind, i.paymentId, i.requestedAt.getTime(), ...(i.replaces === null ? [] : [i.replaces])],
    );
    return rows.length === 1;
  }
}
