/**
 * Step 4, the settlement: the payment moves to SETTLING and the facilitator settles it, with no
 * database transaction open. Only an answer of success moves it on; anything else is the FAILED
 * rule — the payment stays SETTLING and the caller gets 202 with where to look.
 *
 * A success is not written on its own (decision 0058): the application's transaction moves the
 * payment SETTLING → APPLIED with the settlement's transaction, one commit fewer per paid call.
 * Only when the request cannot apply it (refused now, a chain still mining, any failure) does it
 * write SETTLED first (`keepSettled`); a process that dies in between leaves SETTLING, which the
 * reconciler settles from the chain as it does any settlement whose answer was lost.
 *
 * Compensation: none. Whether money moved is a fact of the chain, not of this request: the
 * reconciler reads the authorization and either settles the payment here (`markSettled`) and
 * applies it, or releases it FAILED (claim.ts) when the chain proves it can never be used.
 */
import { transitionPayment, type Payment } from '../../../domain/payment.js';
import type { SettleResult } from '../../../ports/facilitator.js';
import type { SettlementReceipt } from '../../../ports/payment-store.js';
import type { AnyEntrypoint, Caller, Prepared } from '../../entrypoints.js';
import { PaymentAlreadyApplied } from '../../paid.js';
import { PAYMENT_REASONS } from '../payment-reasons.js';
import type { Claimed } from './claim.js';
import type { PipelineDeps } from './deps.js';
import { pendingResponse, type Outcome } from './outcome.js';
import { countPayment } from '../../metrics.js';

/** A payment settled on chain and what applying it takes: the application step's input. */
export interface Settled {
  kind: 'settled';
  /**
   * The payment with its settlement's transaction: still SETTLING in the store when its own
   * request saw the settlement succeed, SETTLED when the reconciler recorded it from the chain.
   */
  payment: Payment;
  entrypoint: AnyEntrypoint;
  input: unknown;
  prepared: Prepared;
  caller: Caller;
  /** What the settlement answered, before the receipt is signed. */
  settlement: SettlementReceipt;
}

export async function settle(deps: PipelineDeps, c: Claimed): Promise<Settled | Outcome<'pending'>> {
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
  const done: Payment = { ...settling, settlementTx: settled.transaction };
  try {
    await deps.hooks?.afterSettle?.(done);
  } catch (e) {
    await keepSettled(deps, done);
    throw e;
  }
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

/**
 * A settled payment its request leaves unapplied: SETTLED with its transaction, so the reconciler
 * applies it without asking the chain. A store that cannot take the write now leaves it SETTLING,
 * which the reconciler settles from the chain: this is a shortcut, never the only record.
 */
export async function keepSettled(deps: Pick<PipelineDeps, 'uow' | 'clock' | 'logger'>, p: Payment): Promise<void> {
  if (p.state !== 'SETTLING') return;
  try {
    await markSettled(deps, p, p.settlementTx);
  } catch (e) {
    deps.logger.warn('a settled payment could not be marked SETTLED; the reconciler reads it from the chain', {
      paymentId: p.paymentId,
      error: e instanceof Error ? e.message : String(e),
    });
  }
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
