/**
 * The x402 v2 HTTP headers, encoded and decoded with the official @x402/core helpers so that
 * official clients work unchanged.
 */
import { decodePaymentSignatureHeader, encodePaymentRequiredHeader, encodePaymentResponseHeader } from '@x402/core/http';
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

export function encodePaymentRequired(paymentRequired: unknown): string {
  return encodePaymentRequiredHeader(paymentRequired as Parameters<typeof encodePaymentRequiredHeader>[0]);
}

/** The settlement answer, as the official encoder writes it. */
export function encodePaymentResponse(settlement: SettlementReceipt): string {
  return encodePaymentResponseHeader(settlement as Parameters<typeof encodePaymentResponseHeader>[0]);
}
