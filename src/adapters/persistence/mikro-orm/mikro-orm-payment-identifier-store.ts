import type { PaymentIdentifierClaim, PaymentIdentifierRecord, PaymentIdentifierStore } from '../../../ports/payment-identifier-store.js';
import type { StoredResponse } from '../../../ports/payment-store.js';
import { json, ms, type Sql } from './sql.js';
import { Table } from './table.js';

const IDENTIFIERS = new Table<PaymentIdentifierRecord>(
  'payment_identifiers',
  {
    id: (i) => i.id,
    payer: (i) => i.payer,
    request_hash: (i) => i.requestHash,
    payment_id: (i) => i.paymentId,
    created_at: (i) => i.createdAt.getTime(),
  },
  (r) => ({
    id: String(r.id),
    payer: String(r.payer),
    requestHash: String(r.request_hash),
    paymentId: String(r.payment_id),
    createdAt: ms(r.created_at),
  }),
);

export class MikroOrmPaymentIdentifierStore implements PaymentIdentifierStore {
  constructor(private readonly sql: Sql) {}

  async claim(record: PaymentIdentifierRecord): Promise<PaymentIdentifierClaim> {
    // The primary key decides: of concurrent claims of one id exactly one inserts.
    const inserted = await this.sql.all(`${IDENTIFIERS.insert} on conflict (id) do nothing returning id`, IDENTIFIERS.values(record));
    if (inserted.length === 1) return { claimed: true };
    const existing = await this.find(record.id);
    if (!existing) throw new Error('a conflicting payment identifier vanished');
    return { claimed: false, existing: existing.record };
  }

  async find(id: string): Promise<{ record: PaymentIdentifierRecord; response: StoredResponse | null } | null> {
    const r = await this.sql.one(
      `select ${IDENTIFIERS.select(this.sql, 'i.')}, p.response
       from payment_identifiers i join payments p on p.payment_id = i.payment_id where i.id = ?`,
      [id],
    );
    if (!r) return null;
    return { record: IDENTIFIERS.fromRow(r), response: r.response === null || r.response === undefined ? null : (json(r.response) as StoredResponse) };
  }

  async findByPayment(paymentId: string): Promise<PaymentIdentifierRecord | null> {
    const r = await this.sql.one(`select ${IDENTIFIERS.select(this.sql)} from payment_identifiers where payment_id = ?`, [paymentId]);
    return r ? IDENTIFIERS.fromRow(r) : null;
  }
}
