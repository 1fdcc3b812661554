import type { Network } from '../domain/network.js';
import type { Payment, PaymentState } from '../domain/payment.js';

/** What the settlement answered, sent back in the x402 `PAYMENT-RESPONSE` header. */
export interface SettlementReceipt {
  success: boolean;
  transaction: string;
  network: string;
  payer: string;
  /** What moved, where the scheme says it: an upto payment's charge, at most its signed maximum (docs/payments.md "Pay up to"). */
  amount?: string;
  /** Scheme-specific facts for the client: a batch-settlement call's `chargedAmount` and `channelState` (docs/payments.md "Pay once, call many"). */
  extra?: Record<string, unknown>;
  /** x402 extensions of the settlement response, e.g. the signed receipt under `offer-receipt` (docs/api.md "Signed offers and receipts"). */
  extensions?: Record<string, unknown>;
}

/** The response the service gave for a payment, returned again when the same signature is replayed. */
export interface StoredResponse {
  status: number;
  body: unknown;
  headers: Record<string, string>;
  /** Present once the payment settled: the HTTP adapter encodes it as PAYMENT-RESPONSE. */
  settlement?: SettlementReceipt;
}

export type ClaimResult = { claimed: true; payment: Payment } | { claimed: false; existing: Payment };

export interface PaymentStore {
  /**
   * Inserts the payment unless its (network, payer, nonce) is already claimed: atomic, so of
   * two concurrent claims of one authorization exactly one wins.
   */
  claim(payment: Payment): Promise<ClaimResult>;
  get(paymentId: string): Promise<Payment | null>;
  findByNonce(network: Network, payer: string, nonce: string): Promise<Payment | null>;
  /**
   * Compare-and-set: stores `next` only if the stored state is still `from`. Returns whether
   * it did, so two workers can never both move one payment. With `response`, the answer is
   * stored in the same step (as `saveResponse` would), and only if the move is made.
   */
  update(next: Payment, from: PaymentState, response?: StoredResponse): Promise<boolean>;
  /**
   * `update` for a move whose loss fails the transaction it is made in (the application's
   * SETTLED → APPLIED): nothing is answered back, and a lost compare-and-set rejects with
   * `lost()` — at once, or where the store sends a transaction's writes together (decision
   * 0055) at the unit's next statement or its commit, which then rolls back.
   */
  move(next: Payment, from: PaymentState, response: StoredResponse | undefined, lost: () => Error): Promise<void>;
  saveResponse(paymentId: string, response: StoredResponse): Promise<void>;
  getResponse(paymentId: string): Promise<StoredResponse | null>;
  /** Payments in `state` last updated at or before `updatedBefore`, oldest first. */
  listByState(state: PaymentState, updatedBefore: Date, limit: number): Promise<Payment[]>;
  /** Payments in `state` after `cursor` in (updatedAt, paymentId) order: a resumable sweep. */
  listAfter(state: PaymentState, cursor: { updatedAt: Date; paymentId: string }, limit: number): Promise<Payment[]>;
}
