/**
 * The x402 v1 HTTP transport (decision 0046): the payment in `X-PAYMENT`, the settlement in
 * `X-PAYMENT-RESPONSE`, both base64 JSON, and the 402 body's top-level `x402Version` and
 * `accepts` that v1 clients (x402-fetch, x402-axios) read — beside our error envelope, whose
 * `error` stays the envelope's object (the clients read only the two fields).
 */
import { PAYMENT_REASONS } from '../../../app/payments/payment-reasons.js';
import { MAX_TIMEOUT_SECONDS } from '../../../app/payments/requirements.js';
import { PaymentInvalid } from '../../../domain/errors.js';
import { isNetwork } from '../../../domain/network.js';
import type { PaymentPayload, PaymentRequirements, ResourceInfo } from '../../../ports/facilitator.js';
import type { SettlementReceipt } from '../../../ports/payment-store.js';
import { fromV1Payment, networkOfV1, v1Accepts, v1NetworkName, X402_V1, type V1PaymentPayload, type V1PaymentRequirements } from '../../kit/x402/v1-wire.js';

export const X_PAYMENT = 'x-payment';
export const X_PAYMENT_RESPONSE = 'X-PAYMENT-RESPONSE';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function decodeJson(header: string): unknown {
  if (!BASE64.test(header) || header.replace(/=+$/, '').length % 4 === 1) throw new Error('not base64');
  return JSON.parse(Buffer.from(header, 'base64').toString('utf8'));
}

/** Whether a decoded payment header holds a v1 payload (top-level scheme and network, no `accepted`). */
export function isV1Payload(decoded: unknown): decoded is V1PaymentPayload {
  return isObject(decoded) && decoded.x402Version === X402_V1 && !('accepted' in decoded) && typeof decoded.network === 'string';
}

/**
 * `X-PAYMENT` as the pipeline's payment (v1-wire.ts `fromV1Payment`), bound to `resourceUrl` —
 * the URL it was sent to. A header that is no v1 `exact` payment on one of our networks is a
 * PaymentInvalid with its reason, answered with a 402 once the request is known to be valid.
 */
export function decodeXPayment(header: string, resourceUrl: string): PaymentPayload {
  let decoded: unknown;
  try {
    decoded = decodeJson(header);
  } catch {
    throw new PaymentInvalid('X-PAYMENT is not a base64-encoded x402 v1 payment payload.', { reason: PAYMENT_REASONS.invalidXPaymentHeader });
  }
  return readV1Payment(decoded, resourceUrl);
}

/** A decoded v1 payload (from X-PAYMENT, or sent in PAYMENT-SIGNATURE) as the pipeline's payment. */
export function readV1Payment(decoded: unknown, resourceUrl: string): PaymentPayload {
  if (!isObject(decoded) || !isObject(decoded.payload)) {
    throw new PaymentInvalid('The payment is not an x402 v1 payment payload (x402Version, scheme, network, payload).', { reason: PAYMENT_REASONS.invalidXPaymentHeader });
  }
  if (decoded.x402Version !== X402_V1 || 'accepted' in decoded) {
    throw new PaymentInvalid('X-PAYMENT carries x402 v1 payments (x402Version 1); send an x402 v2 payment in PAYMENT-SIGNATURE.', {
      reason: PAYMENT_REASONS.unsupportedPayment,
    });
  }
  if (decoded.scheme !== 'exact' || !networkOfV1(decoded.network)) {
    throw new PaymentInvalid('The payment is not an x402 v1 `exact` payment on base or base-sepolia.', { reason: PAYMENT_REASONS.unsupportedPayment });
  }
  return fromV1Payment(decoded as unknown as V1PaymentPayload, resourceUrl, MAX_TIMEOUT_SECONDS);
}

/** X-PAYMENT-RESPONSE: the settlement as v1 writes it — success, transaction, v1's network name, payer. */
export function encodeXPaymentResponse(settlement: SettlementReceipt): string {
  const network = isNetwork(settlement.network) ? v1NetworkName(settlement.network) : settlement.network;
  const v1 = { success: settlement.success, transaction: settlement.transaction, network, payer: settlement.payer };
  return Buffer.from(JSON.stringify(v1), 'utf8').toString('base64');
}

/** The fields a v1 client reads from a 402's body, made from the PaymentRequired object (v2) the body carries. */
export function v1ChallengeFields(required: Record<string, unknown>): { x402Version: 1; accepts: V1PaymentRequirements[] } | undefined {
  const resource = required.resource as ResourceInfo | undefined;
  if (!Array.isArray(required.accepts) || typeof resource?.url !== 'string') return undefined;
  return { x402Version: X402_V1, accepts: v1Accepts({ resource, accepts: required.accepts as PaymentRequirements[] }) };
}
