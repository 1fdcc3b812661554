/**
 * Step 4, the settlement: the payment moves to SETTLING and the facilitator settles it, with no
 * database transaction open. Only an answer of success moves it on (SETTLED); anything else is the
 * FAILED rule — the payment stays SETTLING and the caller gets 202 with where to look.
 *
 * Compensation: none. Whether money moved is a fact of the chain, not of this request: the
 * reconciler reads the authorization and either settles the payment here (`markSettled`) and
 * applies it, or releases it FAILED (claim.ts) when the chain proves it can never be used.
 *
 * An `upto` payment (docs/payments.md "Pay up to") settles like an exact one, for the price it is
 * charged — not its signed maximum — through its Permit2 transfer; the chain's reading of its
 * Permit2 nonce takes the place of the EIP-3009 authorization's.
 *
 * A batch-settlement voucher (docs/payments.md "Pay once, call many") settles in the database: no
 * transaction — the deposit backs the call — but the channel's charge, in one transaction with the
 * payment's move to SETTLED under the voucher's commitment (`chargeVoucher`). Of two vouchers
 * racing on one channel one is charged; the other's payment is released (REJECTED, nothing
 * charged) with the scheme's corrective 402 stored as its answer. Its compensation is the
 * application's refund, which takes the charge back.
 */
import { transitionPayment, type Payment } from '../../../domain/payment.js';
import type { PaymentRequirements, SettleResult } from '../../../ports/facilitator.js';
import { UPTO } from '../requirements.js';
import type { SettlementReceipt } from '../../../ports/payment-store.js';
import type { AnyEntrypoint, Caller, Prepared } from '../../kit/catalogue/entrypoint.js';
import { PaymentAlreadyApplied } from '../../kit/paid.js';
import { PAYMENT_REASONS } from '../payment-reasons.js';
import { release, type Claimed } from './claim.js';
import type { PipelineDeps } from './deps.js';
import { pendingResponse, type Outcome } from './outcome.js';
import { countPayment } from '../../kit/metrics.js';
import { movedFirst } from './stored-answer.js';
import { voucherCommitment, type Channel } from '../../../domain/channel.js';
import type { VoucherCharge } from '../batch/voucher-charge.js';
import { channelStateExtra, corrective } from '../batch/voucher-verification.js';
import { refusalFor } from './refusal.js';

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

export async function settle(deps: PipelineDeps, c: Claimed): Promise<Settled | Outcome<'pending' | 'replayed' | 'rejected'>> {
  // A voucher settles in the database: the channel is charged (batch/voucher-settlement.ts).
  if (c.voucher) return chargeVoucher(deps, c, c.voucher);
  const settling = transitionPayment(c.payment, 'SETTLING', deps.clock.now());
  if (!(await deps.uow.run((s) => s.payments.update(settling, c.payment.state)))) throw new PaymentAlreadyApplied(c.payment.paymentId);
  let settled: SettleResult;
  const started = deps.clock.now().getTime();
  const took = (result: string) =>
    deps.metrics.observe('settlement_duration_seconds', (deps.clock.now().getTime() - started) / 1000, { network: c.payment.network, result });
  try {
    settled = await deps.facilitator.settle(c.payload, settledRequirements(c));
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
    settlement: {
      success: true,
      transaction: settled.transaction,
      network: settled.network,
      payer: settled.payer ?? done.payer,
      ...(done.scheme === UPTO ? { amount: done.amount.toString() } : {}),
    },
  };
}

/**
 * What the facilitator settles: the requirements the payment was verified against — for an upto
 * payment (docs/payments.md "Pay up to") with the amount it is charged, its price, in place of the
 * signed maximum (the scheme's settlement-time `amount`).
 */
function settledRequirements(c: Claimed): PaymentRequirements {
  return c.payment.scheme === UPTO ? { ...c.requirements, amount: c.payment.amount.toString() } : c.requirements;
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

async function chargeVoucher(deps: PipelineDeps, c: Claimed, charge: VoucherCharge): Promise<Settled | Outcome<'rejected'>> {
  const { voucher: v } = charge;
  const now = deps.clock.now();
  const settling = transitionPayment(c.payment, 'SETTLING', now);
  const settled = transitionPayment(settling, 'SETTLED', now, { settlementTx: voucherCommitment(v.channelId, v.max) });
  // The channel as admission read it: the charge's compare-and-set says whether it moved since (then the corrective 402).
  const before = charge.channel;
  const charged = await deps.uow.transaction(async (s) => {
    if (!(await s.channels.charge(v.channelId, { from: before.charged, amount: c.payment.amount, voucherMax: v.max, signature: v.signature }, now))) return false;
    // VERIFIED → SETTLED in one statement (the transitions are checked above, through SETTLING).
    if (!(await s.payments.update(settled, c.payment.state))) throw new PaymentAlreadyApplied(c.payment.paymentId);
    return true;
  });
  if (!charged) return lostTheRace(deps, c, charge);
  const after: Channel = { ...before, charged: before.charged + c.payment.amount, signedMax: v.max, signature: v.signature };
  return {
    kind: 'settled',
    payment: settled,
    entrypoint: c.entrypoint,
    input: c.input,
    prepared: c.prepared,
    caller: c.caller,
    settlement: {
      success: true,
      transaction: settled.settlementTx!,
      network: settled.network,
      payer: settled.payer,
      extra: { chargedAmount: c.payment.amount.toString(), channelState: channelStateExtra(after) },
    },
  };
}

/** Another voucher was charged first: this payment is closed uncharged with the corrective 402 as its answer. */
async function lostTheRace(deps: PipelineDeps, c: Claimed, charge: VoucherCharge): Promise<Outcome<'rejected'>> {
  const channel = (await deps.uow.run((s) => s.channels.get(charge.voucher.channelId))) ?? charge.channel;
  const refusal = refusalFor(deps, { entrypoint: c.entrypoint, rawInput: c.payment.input, resource: { url: c.payment.resourceUrl ?? '' }, payment: c.payload }, c.payment.requestHash, c.prepared);
  const error = await corrective(refusal, channel, charge.voucher, { price: c.payment.amount });
  const response = await release(deps, c.payment, 'REJECTED', error);
  if (!response) throw new PaymentAlreadyApplied(c.payment.paymentId);
  return { kind: 'rejected', response, paymentId: c.payment.paymentId };
}
