/**
 * The x402 extensions' wire pieces that travel in the payment payload and the 402, read and
 * written with @x402/extensions so nothing of their format is ours (#17).
 */
import {
  declarePaymentIdentifierExtension,
  extractAndValidatePaymentIdentifier,
  PAYMENT_IDENTIFIER,
} from '@x402/extensions/payment-identifier';
import type { PaymentPayload } from '../../../ports/facilitator.js';

export { PAYMENT_IDENTIFIER };

/** A payment payload's `payment-identifier`: absent, a valid id, or present but malformed. */
export type PaymentIdentifierReading = { id: string } | { id: null } | { id: null; invalid: string[] };

/**
 * The client's idempotency id from a decoded PAYMENT-SIGNATURE, validated by the extension
 * (16–128 of [A-Za-z0-9_-], its JSON Schema). A malformed one is reported, not thrown: the
 * request then goes through the plain flow (#17: a malformed extension never blocks paying).
 */
export function readPaymentIdentifier(payload: PaymentPayload): PaymentIdentifierReading {
  try {
    const { id, validation } = extractAndValidatePaymentIdentifier(payload as never);
    if (!validation.valid) return { id: null, invalid: validation.errors ?? ['invalid payment identifier'] };
    return id === null ? { id: null } : { id };
  } catch (e) {
    return { id: null, invalid: [e instanceof Error ? e.message : 'unreadable payment identifier'] };
  }
}

/** The `payment-identifier` entry of a 402's `extensions`: ids are welcome, not required. */
export function paymentIdentifierDeclaration(): Record<string, unknown> {
  return { [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(false) };
}
