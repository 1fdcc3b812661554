/** Custody intents (migration 0014): one row per kind and payment, the latest ask standing. */
import type { Network } from '../../../domain/network.js';
import type { CustodyIntent, CustodyIntentKind, CustodyIntentStore } from '../../../ports/custody-intent-store.js';
import { ms, type Sql } from './sql.js';
import { Table } from './table.js';

const INTENTS = new Table<CustodyIntent>(
  'custody_intents',
  {
    kind: (i) => i.kind,
    payment_id: (i) => i.paymentId,
    network: (i) => i.network,
    token_id: (i) => i.tokenId,
    request: (i) => i.request,
    replaces: (i) => i.replaces,
    requested_at: (i) => i.requestedAt.getTime(),
  },
  (r) => ({
    kind: String(r.kind) as CustodyIntentKind,
    paymentId: String(r.payment_id),
    network: String(r.network) as Network,
    tokenId: String(r.token_id),
    request: String(r.request),
    replaces: r.replaces === null || r.replaces === undefined ? null : String(r.replaces),
    requestedAt: ms(r.requested_at),
  }),
);
/** The latest ask stands. */
const REQUEST = `${INTENTS.upsert(['kind', 'payment_id'], ['request', 'replaces', 'requested_at'])} returning payment_id`;

export class MikroOrmCustodyIntentStore implements CustodyIntentStore {
  constructor(private readonly sql: Sql) {}

  async request(i: CustodyIntent): Promise<void> {
    await this.sql.all(REQUEST, INTENTS.values(i));
  }

  async open(limit: number): Promise<CustodyIntent[]> {
    return (await this.sql.all(`select ${INTENTS.select(this.sql)} from custody_intents order by requested_at, payment_id limit ?`, [limit])).map(INTENTS.fromRow);
  }

  async answered(i: CustodyIntent): Promise<boolean> {
    const rows = await this.sql.all(
      `delete from custody_intents where kind = ? and payment_id = ? and requested_at = ? and ${i.replaces === null ? 'replaces is null' : 'replaces = ?'} returning payment_id`,
      [i.kind, i.paymentId, i.requestedAt.getTime(), ...(i.replaces === null ? [] : [i.replaces])],
    );
    return rows.length === 1;
  }
}
