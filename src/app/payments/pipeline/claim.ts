/**
 * Step 3, the claim: the payment is stored under its (network, payer, nonce) — with its payment
 * identifier, in one transaction — so of two requests with one authorization exactly one goes on;
 * the other answers what the first stores. Then the rules again, now that the payer is proven and
 * the nonce is ours — the second look (pricing.ts): nothing may have changed — and what the
 * operation must hold alone (an order's held authorization) is taken for the payment, so of rival
 * requests one goes on.
 *
 * Compensation: `release` closes a payment that was never charged with its answer stored —
 * REJECTED when the rules refuse it now or its request died before settling, FAILED when the chain
 * proves its authorization can never be settled (the reconciler).
 */
import { isRefusal, type DomainError } from '../../../domain/errors.js';
import { transitionPayment, type Payment } from '../../../domain/payment.js';
import type { StoredResponse } from '../../../ports/payment-store.js';
import { errorEnvelope, statusOfError } from '../../kit/error-status.js';
import { claimPayment } from '../extensions/payment-identifier.js';
import { PaymentAlreadyApplied } from '../../kit/paid.js';
import type { Admitted } from './admission.js';
import type { PipelineDeps } from './deps.js';
import type { Outcome } from './outcome.js';
import { countPayment } from '../../kit/metrics.js';
import { lookAgain } from './pricing.js';
import { identifiedAnswer, replay } from './stored-answer.js';

/** An admitted payment whose nonce is ours, stored VERIFIED, its rules checked again. */
export interface Claimed extends Omit<Admitted, 'kind'> {
  kind: 'claimed';
}

export async function claim(deps: PipelineDeps, a: Admitted): Promise<Claimed | Outcome<'replayed' | 'rejected'>> {
  const claimed = await claimPayment(deps.uow, a.payment, a.paymentIdentifier);
  if (!claimed.claimed) {
    // Another request claimed the identifier first, or this very authorization.
    const response =
      'identifier' in claimed
        ? await identifiedAnswer(deps, claimed.identifier)
        : await replay(deps, claimed.existing, a.payment.requestHash, a.payment.signatureHash);
    return { kind: 'replayed', response, verified: true, ...('existing' in claimed ? { paymentId: claimed.existing.paymentId } : {}) };
  }
  // From here on every answer is stored with the payment.
  try {
    // The second look (pricing.ts): what changed while the payment was verified is refused here, uncharged.
    const again = await lookAgain(deps, a.entrypoint, a.input, a.caller, { at: 'claim', priced: a.prepared });
    // What the operation must hold alone is the payment's from now (a held authorization): a rival is refused here, uncharged.
    await a.entrypoint.reserve?.(deps, a.input, again, a.payment);
    return { ...a, kind: 'claimed', prepared: again };
  } catch (e) {
    if (!isRefusal(e)) throw e; // a database outage: left VERIFIED, the reconciler closes it
    deps.logger.info('payment refused after verification; nothing charged', { paymentId: a.payment.paymentId, payer: a.payment.payer, code: e.code });
    const response = await release(deps, a.payment, 'REJECTED', e);
    if (!response) throw new PaymentAlreadyApplied(a.payment.paymentId);
    return { kind: 'rejected', response, paymentId: a.payment.paymentId };
  }
}

/**
 * The claim's compensation: a payment never charged is closed with its answer stored, in one
 * transaction; null when another request or worker moved it first (compare-and-set).
 */
export async function release(
  deps: Pick<PipelineDeps, 'uow' | 'clock' | 'metrics'>,
  payment: Payment,
  to: 'REJECTED' | 'FAILED',
  error: DomainError,
  headers: Record<string, string> = {},
): Promise<StoredResponse | null> {
  const closed = transitionPayment(payment, to, deps.clock.now());
  const response: StoredResponse = { status: statusOfError(error), body: errorEnvelope(error.code, error.message, error.details), headers };
  const released = await deps.uow.transaction(async (s) => {
    return (await s.payments.update(closed, payment.state, response)) ? response : null;
  });
  if (released) countPayment(deps.metrics, payment, to === 'REJECTED' ? 'rejected' : 'failed');
  return released;
}
