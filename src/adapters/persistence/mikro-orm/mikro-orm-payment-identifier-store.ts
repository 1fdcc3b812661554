import type { PaymentIdentifierClaim, PaymentIdentifierRecord, PaymentIdentifierStore } from '../../../ports/payment-identifier-store.js';
import type { StoredResponse } from '../../../ports/payment-store.js';
import { json, ms, type Row, type Sql } from './sql.js';

const rowToRecord = (r: Row): PaymentIdentifierRecord => ({
  id: String(r.id),
  payer: String(r.payer),
  requestHash: String(r.request_hash),
  paymentId: String(r.payment_id),
  createdAt: ms(r.created_at),
});

export class MikroOrmPaymentIdentifierStore implements PaymentIdentifierStore {
  constructor(private readonly sql: Sql) {}

  async claim(record: PaymentIdentifierRecord): Promise<PaymentIdentifierClaim> {
    // The primary key decides: of concurrent claims of one id exactly one inserts.
    const inserted = await this.sql.all(
      `insert into payment_identifiers (id, payer, request_hash, payment_id, created_at) values (?, ?, ?, ?, ?)
       on conflict (id) do nothing returning id`,
      [record.id, record.payer, record.requestHash, record.paymentId, record.createdAt.getTime()],
    );
    if (inserted.length === 1) return { claimed: true };
    const existing = await this.find(record.id);
    if (!existing) throw new Error('a conflicting payment identifier vanished');
    return { claimed: false, existing: existing.record };
  }

  async find(id: string): Promise<{ record: PaymentIdentifierRecord; response: StoredResponse | null } | null> {
    const r = await this.sql.one(
      `select i.id, i.payer, i.request_hash, i.payment_id, i.created_at, p.response
       from payment_identifiers i join payments p on p.payment_id = i.payment_id where i.id = ?`,
      [id],
    );
    if (!r) return null;
    return { record: rowToRecord(r), response: r.response === null || r.response === undefined ? null : (json(r.response) as StoredResponse) };
  }

  async findByPayment(paymentId: string): Promise<PaymentIdentifierRecord | null> {
    const r = await this.sql.one(`select id, payer, request_hash, payment_id, created_at from payment_identifiers where payment_id = ?`, [paymentId]);
    return r ? rowToRecord(r) : null;
  }
}
