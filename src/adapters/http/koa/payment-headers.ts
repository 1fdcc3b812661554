/**
 * The two x402 HTTP transports a paid route speaks (decision 0046): v2 — the payment in
 * PAYMENT-SIGNATURE, the settlement in PAYMENT-RESPONSE — and v1 — X-PAYMENT and
 * X-PAYMENT-RESPONSE. Both decode to the one payment the pipeline takes; the answer's settlement
 * header is the family the payment came in. Every 402 carries both versions' challenge: the v2
 * PaymentRequired (header and body) and v1's top-level `x402Version` and `accepts` (body only, so
 * PAYMENT-REQUIRED keeps its size, decision 0034).
 */
import type { Context } from 'koa';
import type { PaymentPayload } from '../../../ports/facilitator.js';
import type { SettlementReceipt } from '../../../ports/payment-store.js';
import { decodeXPayment, encodeXPaymentResponse, isV1Payload, readV1Payment, v1ChallengeFields, X_PAYMENT, X_PAYMENT_RESPONSE } from './x402-v1-headers.js';
import { decodePaymentSignature, encodePaymentResponse, PAYMENT_RESPONSE, PAYMENT_SIGNATURE } from './x402-headers.js';

/** Which header a payment came in; PAYMENT-SIGNATURE wins when a request carries both. */
export type PaymentHeader = 'PAYMENT-SIGNATURE' | 'X-PAYMENT';

type GetHeader = (name: string) => string;

export function paymentHeaderOf(get: GetHeader): PaymentHeader | undefined {
  if (get(PAYMENT_SIGNATURE)) return 'PAYMENT-SIGNATURE';
  if (get(X_PAYMENT)) return 'X-PAYMENT';
  return undefined;
}

/** Whether a request carries a payment in either version's header (the rate limiter counts it after the answer). */
export const carriesPayment = (get: GetHeader): boolean => paymentHeaderOf(get) !== undefined;

/**
 * The payment in `header`, decoded: a v1 payload (X-PAYMENT, or PAYMENT-SIGNATURE holding one)
 * bound to `resourceUrl`. Throws the refusal of a header that is no payment.
 */
export function readPayment(get: GetHeader, header: PaymentHeader, resourceUrl: string): PaymentPayload {
  if (header === 'X-PAYMENT') return decodeXPayment(get(X_PAYMENT), resourceUrl);
  const decoded = decodePaymentSignature(get(PAYMENT_SIGNATURE));
  return isV1Payload(decoded) ? readV1Payment(decoded, resourceUrl) : decoded;
}

/** The settlement header of an answer, in the family the payment came in. */
export function setSettlementHeader(ctx: Context, header: PaymentHeader | undefined, settlement: SettlementReceipt): void {
  if (header === 'X-PAYMENT') ctx.set(X_PAYMENT_RESPONSE, encodeXPaymentResponse(settlement));
  else ctx.set(PAYMENT_RESPONSE, encodePaymentResponse(settlement));
}

/** A 402's body with what a v1 client reads beside the envelope: `x402Version: 1` and v1's `accepts`. */
export function withV1Challenge(body: unknown, required: Record<string, unknown>): unknown {
  const v1 = v1ChallengeFields(required);
  return v1 && body && typeof body === 'object' ? { ...body, ...v1 } : body;
}
