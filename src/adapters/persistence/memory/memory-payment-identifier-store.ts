import type { PaymentIdentifierClaim, PaymentIdentifierRecord, PaymentIdentifierStore } from '../../../ports/payment-identifier-store.js';
import type { StoredResponse } from '../../../ports/payment-store.js';
import type { MemoryDatabase, MemoryTx } from './memory-database.js';

export class MemoryPaymentIdentifierStore implements PaymentIdentifierStore {
  constructor(
    private readonly db: MemoryDatabase,
    private readonly tx: MemoryTx | null,
  ) {}

  async claim(record: PaymentIdentifierRecord): Promise<PaymentIdentifierClaim> {
    const existing = this.db.paymentIds.get(record.id);
    if (existing) return { claimed: false, existing };
    // The database's foreign key, here by hand: an id is always stored with its payment.
    if (!this.db.payments.has(record.paymentId)) throw new Error(`payment ${record.paymentId} does not exist`);
    this.db.set(this.tx, this.db.paymentIds, record.id, record);
    return { claimed: true };
  }

  async find(id: string): Promise<{ record: PaymentIdentifierRecord; response: StoredResponse | null } | null> {
    const record = this.db.paymentIds.get(id);
    if (!record) return null;
    const response = this.db.responses.get(record.paymentId);
    return { record, response: response ? structuredClone(response) : null };
  }

  async findByPayment(paymentId: string): Promise<PaymentIdentifierRecord | null> {
    for (const record of this.db.paymentIds.values()) if (record.paymentId === paymentId) return record;
    return null;
  }
}
