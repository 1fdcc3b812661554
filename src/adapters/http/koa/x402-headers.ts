/**
 * The x402 v2 HTTP headers in the official @x402/core format (base64 of the JSON, UTF-8), so that
 * official clients work unchanged. The package's helpers build the base64 through a string of
 * one character per byte (`btoa`/`atob`): on our 402s — ~9 KB of JSON with the Bazaar metadata,
 * echoed back in every PAYMENT-SIGNATURE — that was a visible share of a paid request's CPU
 * (docs/performance.md). The same bytes come from Node's Buffer; test/adapters/http/x402-headers.test.ts
 * holds them equal to the package's on both directions.
 */
import { PAYMENT_REASONS } from '../../../app/payments/payment-reasons.js';
import { PaymentInvalid } from '../../../domain/errors.js';
import type { PaymentPayload } from '../../../ports/facilitator.js';
import type { SettlementReceipt } from '../../../ports/payment-store.js';

export const PAYMENT_SIGNATURE = 'payment-signature';
export const PAYMENT_REQUIRED = 'PAYMENT-REQUIRED';
export const PAYMENT_RESPONSE = 'PAYMENT-RESPONSE';

/** What @x402/core accepts as a header's base64 before decoding it. */
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

const encode = (value: unknown): string => Buffer.from(JSON.stringify(value), 'utf8').toString('base64');

/** @x402/core's `decodePaymentSignatureHeader`: its base64 check, then the JSON (a length `atob` refuses is refused too). */
function decode(header: string): unknown {
  if (!BASE64.test(header) || header.replace(/=+$/, '').length % 4 === 1) throw new Error('Invalid payment signature header');
  return JSON.parse(Buffer.from(header, 'base64').toString('utf8'));
}

export function decodePaymentSignature(header: string): PaymentPayload {
  let decoded: unknown;
  try {
    decoded = decode(header);
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

/** @x402/core's `encodePaymentRequiredHeader`. */
export function encodePaymentRequired(paymentRequired: unknown): string {
  return encode(paymentRequired);
}

/** The settlement answer, as @x402/core's `encodePaymentResponseHeader` writes it (without `extensionResponses`). */
export function encodePaymentResponse(settlement: SettlementReceipt): string {
  const { extensionResponses: _serverSide, ...buyerFacing } = settlement as SettlementReceipt & { extensionResponses?: unknown };
  return encode(buyerFacing);
}
