import type { Network } from '../../../domain/network.js';
import type { Payment, PaymentState } from '../../../domain/payment.js';
import type { ClaimResult, PaymentStore, StoredResponse } from '../../../ports/payment-store.js';
import type { MemoryDatabase, MemoryTx } from './memory-database.js';

const nonceKey = (network: string, payer: string, nonce: string) =>
  `${network}|${payer.toLowerCase()}|${nonce.toLowerCase()}`;

export class MemoryPaymentStore implements PaymentStore {
  constructor(
    private readonly db: MemoryDatabase,
    private readonly tx: MemoryTx | null,
  ) {}

  async claim(payment: Payment): Promise<ClaimResult> {
    const key = nonceKey(payment.network, payment.payer, payment.nonce);
    const existingId = this.db.paymentNonces.get(key);
    if (existingId !== undefined) return { claimed: false, existing: this.db.payments.get(existingId)! };
    this.db.set(this.tx, this.db.paymentNonces, key, payment.paymentId);
    this.db.set(this.tx, this.db.payments, payment.paymentId, payment);
    return { claimed: true, payment };
  }

  async get(paymentId: string): Promise<Payment | null> {
    return this.db.payments.get(paymentId) ?? null;
  }

  async findByNonce(network: Network, payer: string, nonce: string): Promise<Payment | null> {
    const id = this.db.paymentNonces.get(nonceKey(network, payer, nonce));
    return id === undefined ? null : (this.db.payments.get(id) ?? null);
  }

  async update(next: Payment, from: PaymentState, response?: StoredResponse): Promise<boolean> {
    const current = this.db.payments.get(next.paymentId);
    if (!current || current.state !== from) return false;
    this.db.set(this.tx, this.db.payments, next.paymentId, next);
    if (response) await this.saveResponse(next.paymentId, response);
    return true;
  }

  async move(next: Payment, from: PaymentState, response: StoredResponse | undefined, lost: () => Error): Promise<void> {
    if (!(await this.update(next, from, response))) throw lost();
  }

  async saveResponse(paymentId: string, response: StoredResponse): Promise<void> {
    this.db.set(this.tx, this.db.responses, paymentId, structuredClone(response));
  }

  async getResponse(paymentId: string): Promise<StoredResponse | null> {
    const r = this.db.responses.get(paymentId);
    return r ? structuredClone(r) : null;
  }

  async listByState(state: PaymentState, updatedBefore: Date, limit: number): Promise<Payment[]> {
    return [...this.db.payments.values()]
      .filter((p) => p.state === state && p.updatedAt <= updatedBefore)
      .sort((a, b) => a.updatedAt.getTime() - b.updatedAt.getTime() || (a.paymentId < b.paymentId ? -1 : 1))
      .slice(0, limit);
  }

  async listAfter(state: PaymentState, cursor: { updatedAt: Date; paymentId: string }, limit: number): Promise<Payment[]> {
    const at = cursor.updatedAt.getTime();
    return [...this.db.payments.values()]
      .filter((p) => p.state === state && (p.updatedAt.getTime() > at || (p.updatedAt.getTime() === at && p.paymentId > cursor.paymentId)))
      .sort((a, b) => a.updatedAt.getTime() - b.updatedAt.getTime() || (a.paymentId < b.paymentId ? -1 : 1))
      .slice(0, limit);
  }
}
