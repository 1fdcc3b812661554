/**
 * The x402 v2 HTTP headers, encoded and decoded with the official @x402/core helpers so that
 * official clients work unchanged.
 */
import { decodePaymentSignatureHeader, encodePaymentRequiredHeader, encodePaymentResponseHeader } from '@x402/core/http';
import { PAYMENT_IDENTIFIER } from '@x402/extensions/payment-identifier';
import { SIGN_IN_WITH_X } from '@x402/extensions/sign-in-with-x';
import { PAYMENT_REASONS } from '../../../app/payments/payment-reasons.js';
import { PaymentInvalid } from '../../../domain/errors.js';
import type { PaymentPayload } from '../../../ports/facilitator.js';
import type { SettlementReceipt } from '../../../ports/payment-store.js';

export const PAYMENT_SIGNATURE = 'payment-signature';
export const PAYMENT_REQUIRED = 'PAYMENT-REQUIRED';
export const PAYMENT_RESPONSE = 'PAYMENT-RESPONSE';

export function decodePaymentSignature(header: string): PaymentPayload {
  let decoded: unknown;
  try {
    decoded = decodePaymentSignatureHeader(header);
  } catch {
    throw new PaymentInvalid('PAYMENT-SIGNATURE is not a base64-encoded x402 payment payload.', {
      reason: PAYMENT_REASONS.invalidSignatureHeader,
    });
  }
  if (!decoded || typeof decoded !== 'object' || typeof (decoded as PaymentPayload).payload !== 'object') {
    throw new PaymentInvalid('PAYMENT-SIGNATURE does not hold an x402 payment payload.', {
      reason: PAYMENT_REASONS.invalidSignatureHeader,
    });
  }
  return decoded as PaymentPayload;
}

/**
 * The extensions a 402's header carries: those a client acts on to pay or to prove its wallet (the
 * payment-identifier declaration, the Sign-In-With-X challenge). The others — Bazaar's discovery
 * metadata with its schemas, the signed offers — ride in the 402's body only: official clients
 * echo every extension of the header back in PAYMENT-SIGNATURE, and both headers must pass
 * proxies' default buffers (decision 0034, docs/operations.md "Behind a proxy").
 */
export const HEADER_EXTENSIONS: readonly string[] = [PAYMENT_IDENTIFIER, SIGN_IN_WITH_X];

/**
 * PAYMENT-REQUIRED for a PaymentRequired object: the object with only the header's extensions, and
 * its resource without the description (optional in x402; the body and the discovery documents
 * carry it) — clients echo the resource too.
 */
export function encodePaymentRequired(paymentRequired: Record<string, unknown>): string {
  const extensions = paymentRequired.extensions as Record<string, unknown> | undefined;
  const inHeader = extensions ? Object.fromEntries(Object.entries(extensions).filter(([key]) => HEADER_EXTENSIONS.includes(key))) : undefined;
  const { extensions: _all, resource, ...rest } = paymentRequired;
  const { description: _described, ...located } = (resource ?? {}) as Record<string, unknown>;
  const header = { ...rest, ...(resource ? { resource: located } : {}), ...(inHeader && Object.keys(inHeader).length > 0 ? { extensions: inHeader } : {}) };
  return encodePaymentRequiredHeader(header as unknown as Parameters<typeof encodePaymentRequiredHeader>[0]);
}

/** The settlement answer, as the official encoder writes it. */
export function encodePaymentResponse(settlement: SettlementReceipt): string {
  return encodePaymentResponseHeader(settlement as Parameters<typeof encodePaymentResponseHeader>[0]);
}
