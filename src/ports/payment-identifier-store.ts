import type { StoredResponse } from './payment-store.js';

/**
 * A client-chosen x402 `payment-identifier` (docs/api.md "Payment identifier"), stored beside the payment it paid for: the
 * same id for the same request gets that payment's answer instead of a second charge.
 */
export interface PaymentIdentifierRecord {
  /** The client's id (16–128 of [A-Za-z0-9_-]); unique across the service. */
  readonly id: string;
  /** The payer of the payment the id was first used with. */
  readonly payer: string;
  /** The request it was used for (the payment's requestHash). */
  readonly requestHash: string;
  readonly paymentId: string;
  readonly createdAt: Date;
}

export type PaymentIdentifierClaim = { claimed: true } | { claimed: false; existing: PaymentIdentifierRecord };

export interface PaymentIdentifierStore {
  /**
   * Binds the id to its payment unless the id is taken: atomic, so of concurrent claims exactly
   * one wins and the others get the winner. The payment must exist (claim it first, in the same
   * transaction).
   */
  claim(record: PaymentIdentifierRecord): Promise<PaymentIdentifierClaim>;
  /** The id's record and the answer stored with its payment (null while the payment has none yet). */
  find(id: string): Promise<{ record: PaymentIdentifierRecord; response: StoredResponse | null } | null>;
  /** The id a payment was made with, when its client gave one. */
  findByPayment(paymentId: string): Promise<PaymentIdentifierRecord | null>;
}
