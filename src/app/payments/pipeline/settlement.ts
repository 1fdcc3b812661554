/**
 * Step 4, the settlement: the payment moves to SETTLING and the facilitator settles it, with no
 * database transaction open. Only an answer of success moves it on (SETTLED); anything else is the
 * FAILED rule — the payment stays SETTLING and the caller gets 202 with where to look.
 *
 * Compensation: none. Whether money moved is a fact of the chain, not of this request: the
 * reconciler reads the authorization and either settles the payment here (`markSettled`) and
 * applies it, or releases it FAILED (claim.ts) when the chain proves it can never be used.
 */
import { transitionPayment, type Payment } from '../../../domain/payment.js';
import type { SettleResult } from '../../../ports/facilitator.js';
import type { SettlementReceipt } from '../../../ports/payment-store.js';
import type { AnyEntrypoint, Caller, Prepared } from '../../kit/catalogue/entrypoint.js';
import { PaymentAlreadyApplied } from '../../kit/paid.js';
import { PAYMENT_REASONS } from '../payment-reasons.js';
import type { Claimed } from './claim.js';
import type { PipelineDeps } from './deps.js';
import { pendingResponse, type Outcome } from './outcome.js';
import { countPayment } from '../../kit/metrics.js';
import { movedFirst } from './stored-answer.js';

/** A SETTLED payment and what applying it takes: the application step's input. */
export interface Settled {
  kind: 'settled';
  payment: Payment;
  entrypoint: AnyEntrypoint;
  input: unknown;
  prepared: Prepared;
  caller: Caller;
  /** What the settlement answered, before the receipt is signed. */
  settlement: SettlementReceipt;
}

export async function settle(deps: PipelineDeps, c: Claimed): Promise<Settled | Outcome<'pending' | 'replayed'>> {
  const settling = transitionPayment(c.payment, 'SETTLING', deps.clock.now());
  if (!(await deps.uow.run((s) => s.payments.update(settling, c.payment.state)))) throw new PaymentAlreadyApplied(c.payment.paymentId);
  let settled: SettleResult;
  const started = deps.clock.now().getTime();
  const took = (result: string) =>
    deps.metrics.observe('settlement_duration_seconds', (deps.clock.now().getTime() - started) / 1000, { network: c.payment.network, result });
  try {
    settled = await deps.facilitator.settle(c.payload, c.requirements);
    took(settled.success ? 'success' : 'failed');
  } catch (e) {
    took('unknown');
    return pending(deps, settling, PAYMENT_REASONS.settlementUnknown, e instanceof Error ? e.message : String(e));
  }
  if (!settled.success) {
    return pending(deps, settling, settled.errorReason ?? PAYMENT_REASONS.settlementUnknown, settled.errorMessage, settled.transaction);
  }
  const done = await markSettled(deps, settling, settled.transaction);
  // The reconciler found the settlement on chain first and is applying it.
  if (!done) return movedFirst(deps, settling);
  await deps.hooks?.afterSettle?.(done);
  return {
    kind: 'settled',
    payment: done,
    entrypoint: c.entrypoint,
    input: c.input,
    prepared: c.prepared,
    caller: c.caller,
    settlement: { success: true, transaction: settled.transaction, network: settled.network, payer: settled.payer ?? done.payer },
  };
}

/** SETTLING → SETTLED with the transaction that moved the money; null when another request or worker moved it first. */
export async function markSettled(deps: Pick<PipelineDeps, 'uow' | 'clock'>, settling: Payment, transaction: string | null): Promise<Payment | null> {
  const done = transitionPayment(settling, 'SETTLED', deps.clock.now(), { settlementTx: transaction });
  return (await deps.uow.run((s) => s.payments.update(done, 'SETTLING'))) ? done : null;
}

/** The settlement did not answer success: the money may or may not move. 202, stored for replays. */
async function pending(deps: PipelineDeps, payment: Payment, reason: string, message?: string, transaction?: string): Promise<Outcome<'pending'>> {
  countPayment(deps.metrics, payment, 'pending');
  deps.logger.warn('settlement did not confirm; the payment stays SETTLING for the reconciler', {
    paymentId: payment.paymentId,
    payer: payment.payer,
    reason,
    ...(message ? { message: message.split('\n')[0] } : {}),
    ...(transaction ? { transaction } : {}),
  });
  const response = pendingResponse(payment.paymentId, reason);
  await deps.uow.run((s) => s.payments.saveResponse(payment.paymentId, response));
  return { kind: 'pending', response, paymentId: payment.paymentId };
}
