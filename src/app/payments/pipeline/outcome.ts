/**
 * What a paid request comes to: one tagged union that every transport switches on (the Koa
 * adapter in src/adapters/http/koa/paid-routes.ts). Every kind after the challenge carries the
 * response as the payment keeps it — status, envelope, the few headers it was stored with and the
 * settlement — so a replay answers byte for byte what the first request answered.
 */
import type { StoredResponse } from '../../../ports/payment-store.js';
import { successEnvelope } from '../../kit/error-status.js';
import type { siwxDetails } from '../extensions/wallet-proof.js';
import type { PaymentRequiredObject } from '../requirements.js';

export type PaidOutcome =
  /** No payment: what to pay (every offer, priced and held), and why a Sign-In-With-X proof was not taken. */
  | { kind: 'challenge'; paymentRequired: PaymentRequiredObject; siwx?: ReturnType<typeof siwxDetails> }
  /** No payment, and none needed: the proven wallet paid for this entrypoint lately. */
  | { kind: 'granted'; result: unknown; until: Date }
  /**
   * The answer stored for this payment (or payment identifier) before: nothing is charged again.
   * `verified`: the facilitator verified the payment in this request (a race lost at the claim or later).
   */
  | ({ kind: 'replayed'; response: StoredResponse; verified: boolean } & Identified)
  /** The rules refused it after the claim: REJECTED, never settled, nothing charged. */
  | ({ kind: 'rejected'; response: StoredResponse } & Identified)
  /** Not final yet (the settlement did not answer success, or applying crashed): 202, the reconciler finishes it. */
  | ({ kind: 'pending'; response: StoredResponse } & Identified)
  /** Settled and applied: the operation's answer, with the settlement and its receipt. */
  | ({ kind: 'applied'; response: StoredResponse } & Identified)
  /** Settled, but the operation was refused: the payment is paid back in the asset that paid. */
  | ({ kind: 'refunded'; response: StoredResponse } & Identified);

/** The payment an answer belongs to, for the operator's access log (absent when a replay found only its identifier). */
interface Identified {
  paymentId?: string;
}

export type Outcome<K extends PaidOutcome['kind']> = Extract<PaidOutcome, { kind: K }>;

/** Whether the facilitator verified the payment in this request: only such a request is a paid one (docs/rate-limits.md). */
export function verifiedIn(outcome: PaidOutcome): boolean {
  switch (outcome.kind) {
    case 'challenge':
    case 'granted':
      return false;
    case 'replayed':
      return outcome.verified;
    default:
      return true;
  }
}

/** 202: the payment is not final yet; `GET /api/payments/:id` tells when it is. */
export function pendingResponse(paymentId: string, reason: string): StoredResponse {
  return {
    status: 202,
    body: successEnvelope('payment_pending', { status: 'pending', paymentId, reason, statusUrl: `/api/payments/${paymentId}` }),
    headers: { Location: `/api/payments/${paymentId}`, 'Retry-After': '5' },
  };
}
