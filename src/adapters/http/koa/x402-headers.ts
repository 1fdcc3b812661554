/**
 * The x402 v2 HTTP headers in the official @x402/core format (base64 of the JSON, UTF-8), so that
 * official clients work unchanged. The package's helpers build the base64 through a string of
 * one character per byte (`btoa`/`atob`), a visible share of a paid request's CPU on a few KB of
 * JSON each way (docs/performance.md); the same bytes come from Node's Buffer, and
 * test/adapters/http/x402-headers.test.ts holds them equal to the package's in both directions.
 */
import { PAYMENT_IDENTIFIER } from '@x402/extensions/payment-identifier';
import { SIGN_IN_WITH_X } from '@x402/extensions/sign-in-with-x';
import { PAYMENT_REASONS } from '../../../app/payments/payment-reasons.js';
import { PaymentInvalid } from '../../../domain/errors.js';
import type { PaymentPayload } from '../../../ports/facilitator.js';
import type { SettlementReceipt } from '../../../ports/payment-store.js';
import { decodePaymentHeader } from '../../kit/x402/payment-header.js';
import { EIP2612_GAS_SPONSORING_KEY } from '../../kit/x402/x402-extensions.js';

export const PAYMENT_SIGNATURE = 'payment-signature';
export const PAYMENT_REQUIRED = 'PAYMENT-REQUIRED';
export const PAYMENT_RESPONSE = 'PAYMENT-RESPONSE';

const encode = (value: unknown): string => Buffer.from(JSON.stringify(value), 'utf8').toString('base64');


export function decodePaymentSignature(header: string): PaymentPayload {
  let decoded: unknown;
  try {
    decoded = decodePaymentHeader(header);
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
 * payment-identifier declaration, the Sign-In-With-X challenge, the EIP-2612 gas sponsoring of
 * upto offers). The others — Bazaar's discovery metadata with its schemas, the signed offers —
 * ride in the 402's body only: official clients echo every extension of the header back in
 * PAYMENT-SIGNATURE, and both headers must pass proxies' default buffers (decision 0034,
 * docs/operations.md "Behind a proxy").
 */
export const HEADER_EXTENSIONS: readonly string[] = [PAYMENT_IDENTIFIER, SIGN_IN_WITH_X, EIP2612_GAS_SPONSORING_KEY];

/**
 * PAYMENT-REQUIRED for a PaymentRequired object: the object with only the header's extensions,
 * without their JSON Schemas, and its resource without the description (optional in x402; the
 * body and the discovery documents carry them) — clients echo the resource and extensions too.
 */
export function encodePaymentRequired(paymentRequired: Record<string, unknown>): string {
  const extensions = paymentRequired.extensions as Record<string, unknown> | undefined;
  const inHeader = extensions ? Object.fromEntries(Object.entries(extensions).filter(([key]) => HEADER_EXTENSIONS.includes(key)).map(([key, value]) => [key, withoutSchema(value)])) : undefined;
  const { extensions: _all, resource, ...rest } = paymentRequired;
  const { description: _described, ...located } = (resource ?? {}) as Record<string, unknown>;
  const header = { ...rest, ...(resource ? { resource: located } : {}), ...(inHeader && Object.keys(inHeader).length > 0 ? { extensions: inHeader } : {}) };
  return encode(header);
}

/** An extension as a client acts on it: its JSON Schema (optional in x402; a validator's, not a payer's) rides in the body only. */
function withoutSchema(extension: unknown): unknown {
  if (!extension || typeof extension !== 'object') return extension;
  const { schema: _forValidators, ...acted } = extension as Record<string, unknown>;
  return acted;
}

/** The settlement answer, as @x402/core's `encodePaymentResponseHeader` writes it (without `extensionResponses`). */
export function encodePaymentResponse(settlement: SettlementReceipt): string {
  const { extensionResponses: _serverSide, ...buyerFacing } = settlement as SettlementReceipt & { extensionResponses?: unknown };
  return encode(buyerFacing);
}
