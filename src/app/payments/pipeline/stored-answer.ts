/**
 * Answers from the store: a payment already seen (by its nonce, or by its payment identifier)
 * gets the response stored with it, and nothing is verified, claimed or charged again. Any step
 * that finds another request or worker ahead of it answers this way too.
 */
import { PaymentAlreadyUsed, PaymentInvalid } from '../../../domain/errors.js';
import type { Payment } from '../../../domain/payment.js';
import type { StoredResponse } from '../../../ports/payment-store.js';
import { matchPaymentIdentifier, type PaymentIdentifierMatch } from '../extensions/payment-identifier.js';
import { PAYMENT_REASONS } from '../payment-reasons.js';
import type { PipelineDeps } from './deps.js';
import { pendingResponse, type Outcome } from './outcome.js';

/**
 * The stored answer for a payment already seen. Only the very same signed authorization gets it:
 * another signature for the same nonce is not a replay but an invalid payment, and learns nothing.
 */
export async function replay(deps: PipelineDeps, existing: Payment, requestHash: string, signatureHash: string): Promise<StoredResponse> {
  if (existing.signatureHash !== signatureHash) {
    throw new PaymentInvalid('This authorization nonce was already used with another signature.', {
      reason: PAYMENT_REASONS.nonceAlreadyUsed,
    });
  }
  if (existing.requestHash !== requestHash) throw new PaymentAlreadyUsed(existing.paymentId);
  return storedAnswer(deps, existing.paymentId);
}

/** The same payment again, as the request or worker ahead of this one left it. */
export function replayOwn(deps: PipelineDeps, payment: Payment): Promise<StoredResponse> {
  return replay(deps, payment, payment.requestHash, payment.signatureHash);
}

/** A payment this request verified and another request or worker moved first: answered as that one left it. */
export async function movedFirst(deps: PipelineDeps, payment: Payment): Promise<Outcome<'replayed'>> {
  return { kind: 'replayed', response: await replayOwn(deps, payment), verified: true, paymentId: payment.paymentId };
}

/**
 * A payment identifier seen before, checked before any verification: for this very request (same
 * payer, same input) its payment's answer; for another request 409. Null: never seen.
 */
export async function knownIdentifier(deps: PipelineDeps, id: string | null | undefined, payer: string, requestHash: string): Promise<StoredResponse | null> {
  if (!id) return null;
  const match = await matchPaymentIdentifier(deps.uow, { id, payer, requestHash });
  return match.kind === 'new' ? null : identifiedAnswer(deps, match);
}

export async function identifiedAnswer(deps: PipelineDeps, match: Exclude<PaymentIdentifierMatch, { kind: 'new' }>): Promise<StoredResponse> {
  if (match.kind === 'conflict') throw new PaymentAlreadyUsed(match.paymentId);
  deps.metrics.increment('payment_identifier_replays_total');
  return match.response ?? storedAnswer(deps, match.paymentId);
}

/** A payment's stored answer; waits briefly for one still in flight, then 202. */
async function storedAnswer(deps: PipelineDeps, paymentId: string): Promise<StoredResponse> {
  const deadline = Date.now() + deps.replayWaitMs;
  for (let delay = 10; ; delay = Math.min(delay * 2, 250)) {
    const stored = await deps.uow.run((s) => s.payments.getResponse(paymentId));
    if (stored) return stored;
    if (Date.now() >= deadline) return pendingResponse(paymentId, PAYMENT_REASONS.inFlight);
    await new Promise((r) => setTimeout(r, delay));
  }
}
