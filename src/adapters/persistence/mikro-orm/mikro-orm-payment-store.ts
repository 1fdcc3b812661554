import type { Network, PaymentAsset } from '../../../domain/network.js';
import { formatUsdPrice, parseUsdPrice } from '../../../domain/usd-price.js';
import type { Payment, PaymentScheme, PaymentState } from '../../../domain/payment.js';
import type { ClaimResult, PaymentStore, StoredResponse } from '../../../ports/payment-store.js';
import { big } from './exact-bigint-type.js';
import { exactlyOne, json, ms, type Sql } from './sql.js';
import { exactInt, Table, writeOnly } from './table.js';

const PAYMENTS = new Table<Payment>(
  'payments',
  {
    payment_id: (p) => p.paymentId,
    network: (p) => p.network,
    payer: (p) => p.payer,
    payer_lower: writeOnly((p) => p.payer.toLowerCase()),
    nonce_lower: (p) => p.nonce.toLowerCase(),
    scheme: (p) => p.scheme ?? 'exact',
    asset: (p) => p.asset,
    amount: exactInt((p) => p.amount),
    usd_value: exactInt((p) => p.usdValue),
    quote_id: (p) => p.quoteId,
    quote_price: (p) => (p.quotePrice === null ? null : formatUsdPrice(p.quotePrice)),
    resource: (p) => p.resource,
    resource_url: (p) => p.resourceUrl ?? null,
    request_hash: (p) => p.requestHash,
    signature_hash: (p) => p.signatureHash,
    input: (p) => JSON.stringify(p.input ?? null),
    state: (p) => p.state,
    settlement_tx: (p) => p.settlementTx,
    valid_before: exactInt((p) => p.validBefore),
    created_at: (p) => p.createdAt.getTime(),
    updated_at: (p) => p.updatedAt.getTime(),
  },
  (r) => ({
    paymentId: String(r.payment_id),
    network: r.network as Network,
    payer: String(r.payer),
    nonce: String(r.nonce_lower),
    // Absent is exact, as in memory (Payment.scheme).
    ...(r.scheme && r.scheme !== 'exact' ? { scheme: r.scheme as PaymentScheme } : {}),
    asset: r.asset as PaymentAsset,
    amount: big(r.amount),
    usdValue: big(r.usd_value),
    quoteId: (r.quote_id as string | null) ?? null,
    quotePrice: r.quote_price === null || r.quote_price === undefined ? null : parseUsdPrice(String(r.quote_price)),
    resource: String(r.resource),
    resourceUrl: (r.resource_url as string | null) ?? null,
    requestHash: String(r.request_hash),
    signatureHash: String(r.signature_hash),
    input: json(r.input),
    state: r.state as PaymentState,
    settlementTx: (r.settlement_tx as string | null) ?? null,
    validBefore: big(r.valid_before),
    createdAt: ms(r.created_at),
    updatedAt: ms(r.updated_at),
  }),
);

export class MikroOrmPaymentStore implements PaymentStore {
  constructor(private readonly sql: Sql) {}

  async claim(p: Payment): Promise<ClaimResult> {
    // The unique (network, payer, nonce) index decides: of concurrent claims exactly one inserts.
    const inserted = await this.sql.all(`${PAYMENTS.insert} on conflict (network, payer_lower, nonce_lower) do nothing returning payment_id`, PAYMENTS.values(p));
    if (inserted.length === 1) return { claimed: true, payment: p };
    const existing = await this.findByNonce(p.network, p.payer, p.nonce);
    if (!existing) throw new Error('a conflicting claim vanished');
    return { claimed: false, existing };
  }

  async get(paymentId: string): Promise<Payment | null> {
    const r = await this.sql.one(`select ${PAYMENTS.select(this.sql)} from payments where payment_id = ?`, [paymentId]);
    return r ? PAYMENTS.fromRow(r) : null;
  }

  async findByNonce(network: Network, payer: string, nonce: string): Promise<Payment | null> {
    const r = await this.sql.one(`select ${PAYMENTS.select(this.sql)} from payments where network = ? and payer_lower = ? and nonce_lower = ?`, [
      network,
      payer.toLowerCase(),
      nonce.toLowerCase(),
    ]);
    return r ? PAYMENTS.fromRow(r) : null;
  }

  async update(next: Payment, from: PaymentState, response?: StoredResponse): Promise<boolean> {
    return (await this.sql.all(...moveOf(next, from, response))).length === 1;
  }

  async move(next: Payment, from: PaymentState, response: StoredResponse | undefined, lost: () => Error): Promise<void> {
    await this.sql.write(...moveOf(next, from, response), {
      key: `payments:${next.paymentId}`,
      check: exactlyOne(lost),
    });
  }

  async saveResponse(paymentId: string, response: StoredResponse): Promise<void> {
    await this.sql.all(`update payments set response = ? where payment_id = ? returning payment_id`, [JSON.stringify(response), paymentId]);
  }

  async getResponse(paymentId: string): Promise<StoredResponse | null> {
    const r = await this.sql.one(`select response from payments where payment_id = ?`, [paymentId]);
    return r && r.response !== null && r.response !== undefined ? (json(r.response) as StoredResponse) : null;
  }

  async listByState(state: PaymentState, updatedBefore: Date, limit: number): Promise<Payment[]> {
    const rows = await this.sql.all(
      `select ${PAYMENTS.select(this.sql)} from payments where state = ? and updated_at <= ? order by updated_at, payment_id limit ?`,
      [state, updatedBefore.getTime(), limit],
    );
    return rows.map(PAYMENTS.fromRow);
  }

  async listAfter(state: PaymentState, cursor: { updatedAt: Date; paymentId: string }, limit: number): Promise<Payment[]> {
    const at = cursor.updatedAt.getTime();
    const rows = await this.sql.all(
      `select ${PAYMENTS.select(this.sql)} from payments where state = ? and (updated_at > ? or (updated_at = ? and payment_id > ?))
       order by updated_at, payment_id limit ?`,
      [state, at, at, cursor.paymentId, limit],
    );
    return rows.map(PAYMENTS.fromRow);
  }
}

/**
 * A payment's compare-and-set on its state; with its answer, one statement: the move and the
 * answer a replay gets (one round trip fewer on a paid request).
 */
function moveOf(next: Payment, from: PaymentState, response: StoredResponse | undefined): [string, unknown[]] {
  return response
    ? [
        `update payments set state = ?, settlement_tx = ?, updated_at = ?, response = ? where payment_id = ? and state = ? returning payment_id`,
        [next.state, next.settlementTx, next.updatedAt.getTime(), JSON.stringify(response), next.paymentId, from],
      ]
    : [`update payments set state = ?, settlement_tx = ?, updated_at = ? where payment_id = ? and state = ? returning payment_id`, [next.state, next.settlementTx, next.updatedAt.getTime(), next.paymentId, from]];
}
