/**
 * Step 5, the application: the operation runs with its SETTLED payment, and in the operation's own
 * transaction the payment moves to APPLIED, the answer is stored with the settlement and its
 * signed receipt, and paid access is granted. The compare-and-set on the payment makes applying
 * twice impossible (paid.ts). A crash leaves the payment SETTLED for the reconciler, which runs
 * this step again from the stored payment (`resumeApplication`).
 *
 * Compensation: `refund`. An operation refused after the money moved (the curve moved past the
 * bound, the token graduated) is paid back in the asset that paid, in one transaction. What the
 * operation took into custody before refusing (a sell's pulled tokens) it names with its refusal
 * (`RefusedInCustody.giveBack`), and the refund gives it back in the same transaction, behind the
 * payment's compare-and-set: a copy of the operation that lost the race to another gives nothing back.
 */
import { isRefusal, ServiceUnavailable, type DomainError } from '../../../domain/errors.js';
import { transitionPayment, type Payment } from '../../../domain/payment.js';
import { newPayout } from '../../../domain/payout.js';
import { isNotSent, notSent, type CustodyTransaction } from '../../../ports/custody-transaction-store.js';
import type { SettlementReceipt, StoredResponse } from '../../../ports/payment-store.js';
import type { TokenIssuer } from '../../../ports/token-issuer.js';
import type { Stores } from '../../../ports/unit-of-work.js';
import type { AnyEntrypoint } from '../../kit/catalogue/entrypoint.js';
import { errorEnvelope, statusOfError, successEnvelope } from '../../kit/error-status.js';
import { withReceipt } from '../extensions/receipts.js';
import { PaymentAlreadyApplied, RefundBesideCustody, RefusedInCustody } from '../../kit/paid.js';
import { payoutView } from '../../kit/views.js';
import { PAYMENT_REASONS } from '../payment-reasons.js';
import type { PipelineDeps } from './deps.js';
import { countPayment } from '../../kit/metrics.js';
import { pendingResponse, type Outcome } from './outcome.js';
import { lookAgain } from './pricing.js';
import type { Settled } from './settlement.js';
import { movedFirst } from './stored-answer.js';
import { unchargeVoucher } from '../batch/voucher-charge.js';

export type ApplicationOutcome = Outcome<'applied' | 'refunded' | 'pending' | 'replayed'>;

export async function apply(deps: PipelineDeps, s: Settled): Promise<ApplicationOutcome> {
  const { payment, entrypoint: ep } = s;
  const settlement = await receipted(deps, s.settlement, payment.resourceUrl);
  const answer = (result: unknown): StoredResponse => ({ status: ep.successStatus, body: successEnvelope(ep.operation, result), headers: {}, settlement });
  try {
    const result: unknown = await ep.execute(deps, s.input, s.prepared, s.caller, {
      payment,
      answer,
      onApplied: (stores) => grantAccess(deps, stores, ep, payment),
    });
    countPayment(deps.metrics, payment, 'applied');
    return { kind: 'applied', response: answer(result), paymentId: payment.paymentId };
  } catch (e) {
    if (e instanceof PaymentAlreadyApplied) return movedFirst(deps, payment);
    if (isRefusal(e)) return refundUnlessMoved(deps, payment, e, settlement);
    // A crash while applying: the payment stays SETTLED and the reconciler finishes it.
    deps.logger.error('applying a settled payment failed; left for the reconciler', {
      paymentId: payment.paymentId,
      error: e instanceof Error ? e.message : String(e),
    });
    return { kind: 'pending', response: pendingResponse(payment.paymentId, PAYMENT_REASONS.applyPending), paymentId: payment.paymentId };
  }
}

/**
 * The refusal's refund; when another copy of the operation (the reconciler's) moved the payment
 * first, its stored answer; when custody sent a transaction of it that may have moved its money,
 * no refund: 202, finished from that transaction later.
 */
async function refundUnlessMoved(deps: PipelineDeps, payment: Payment, error: DomainError, settlement: SettlementReceipt): Promise<ApplicationOutcome> {
  try {
    return await refund(deps, payment, error, settlement);
  } catch (e) {
    if (e instanceof PaymentAlreadyApplied) return movedFirst(deps, payment);
    if (!(e instanceof RefundBesideCustody)) throw e;
    deps.logger.warn('a refusal met a transaction custody sent for its payment: not refunded; left for the reconciler', {
      paymentId: payment.paymentId,
      code: error.code,
      transaction: e.transaction,
    });
    return { kind: 'pending', response: pendingResponse(payment.paymentId, PAYMENT_REASONS.applyPending), paymentId: payment.paymentId };
  }
}

/**
 * The application step for a SETTLED payment whose request did not finish it: the input and the
 * rules as the payer again, the price in the paid asset at the payment's own quote; a refusal now
 * is refunded — with what custody took in for it (a sell's mined pull) given back, never beside a
 * swap it sent (decision 0061) — anything else is applied as its request would have, receipted
 * for the resource URL its 402 named.
 */
export async function resumeApplication(deps: PipelineDeps, ep: AnyEntrypoint, payment: Payment): Promise<ApplicationOutcome> {
  const caller = { wallet: payment.payer, network: payment.network, paidAt: payment.createdAt, paymentId: payment.paymentId };
  const settlement = settledOnChain(payment, payment.settlementTx);
  let input: unknown;
  let prepared;
  try {
    input = ep.parse(payment.input);
    // No plan survives the request that died: the second look (pricing.ts) compares with what the payment paid.
    prepared = await lookAgain(deps, ep, input, caller, { at: 'apply', payment });
  } catch (e) {
    // An outage is no refusal: what could not be checked now is checked on a later pass (an
    // operation may hold the payer's money in custody already: a sell's pulled tokens).
    if (!isRefusal(e) || e instanceof ServiceUnavailable) throw e;
    // What custody took in before the request stopped (a sell's mined pull) goes back with the refund.
    const taken = input === undefined ? null : await ep.takenInCustody?.(deps, input, payment);
    return refundUnlessMoved(deps, payment, taken ? new RefusedInCustody(e, taken.taken, taken.giveBack) : e, settlement);
  }
  return apply(deps, { kind: 'settled', payment, entrypoint: ep, input, prepared, caller, settlement });
}

/** The settlement of a payment as the chain shows it, for the answers of payments finished off the request. */
export function settledOnChain(payment: Payment, transaction: string | null): SettlementReceipt {
  return { success: true, transaction: transaction ?? '', network: payment.network, payer: payment.payer, ...(payment.scheme === 'upto' ? { amount: payment.amount.toString() } : {}) };
}

/**
 * The application's compensation: the operation was refused after the money moved (or money
 * moved that should not have): the payment is REFUNDED and a payout of exactly what was paid, in
 * the asset that paid, is queued — in one transaction. `from` is the state the payment is in now.
 *
 * Never beside custody's own transaction of the payment (decision 0061): a swap or pull recorded
 * for it must be one the chain shows reverted, or a pull whose tokens the refusal gives back —
 * read before the transaction, and held to inside it, where the refusal is recorded in their
 * place: one recorded meanwhile by another copy of the operation (a slow request, a custody
 * intent) rolls the refund back (`RefundBesideCustody`).
 */
export async function refund(
  deps: PipelineDeps,
  payment: Payment,
  error: DomainError,
  settlement?: SettlementReceipt,
  from: 'SETTLED' | 'FAILED' | 'REJECTED' = 'SETTLED',
): Promise<Outcome<'refunded'>> {
  const now = deps.clock.now();
  const undone = await undoneInCustody(deps, payment, error);
  const response = await deps.uow.transaction(async (stores) => {
    const refunded = transitionPayment({ ...payment, state: from }, 'REFUNDED', now);
    // Moved first (compare-and-set); its answer, which names the payout, is stored after it below.
    if (!(await stores.payments.update(refunded, from))) throw new PaymentAlreadyApplied(payment.paymentId);
    // Nothing custody has not recorded for the payment yet is sent after its refund — a custody
    // intent the signer answers later, a slower copy of the trade: its refusal stands in the place
    // of a pull and a swap (decision 0059). Where one is recorded, it must be one that moved nothing.
    const refused = notSent(payment.paymentId, payment.network, '', now);
    for (const stands of [await stores.swaps.refuse(refused), await stores.pulls.refuse(refused)]) {
      if (!isNotSent(stands) && !undone.has(stands.txHash)) throw new RefundBesideCustody(payment.paymentId, stands.txHash);
    }
    // What the operation took into custody before it was refused (a sell's pulled tokens) goes
    // back with the refund, or not at all: a payment another copy applied is not refunded here.
    if (error instanceof RefusedInCustody) await error.giveBack?.(stores);
    // A call paid by voucher is uncharged where no claim took its charge: nothing to pay back on chain.
    if (await unchargeVoucher(stores, payment, now)) return storeRefund(stores, payment, error, settlement, { channel: payment.settlementTx, amount: payment.amount.toString(), asset: payment.asset });
    const payout = await stores.payouts.enqueue(
      newPayout({
        payoutId: deps.ids.next('pout'),
        network: payment.network,
        wallet: payment.payer,
        asset: payment.asset,
        amount: payment.amount,
        reason: 'refund',
        sourceId: payment.paymentId,
        now,
      }),
    );
    return storeRefund(stores, payment, error, settlement, payoutView(payout));
  });
  countPayment(deps.metrics, payment, 'refunded');
  deps.logger.info('payment refunded', { paymentId: payment.paymentId, payer: payment.payer, code: error.code });
  return { kind: 'refunded', response, paymentId: payment.paymentId };
}

/** The refund's answer, stored with the payment: the refusal, and how the money goes back (`refund`). */
async function storeRefund(stores: Stores, payment: Payment, error: DomainError, settlement: SettlementReceipt | undefined, refund: unknown): Promise<StoredResponse> {
  const stored: StoredResponse = {
    status: statusOfError(error),
    body: errorEnvelope(error.code, `${error.message} The payment was settled and is refunded.`, { ...(error.details ?? {}), paymentId: payment.paymentId, refund }),
    headers: {},
    ...(settlement ? { settlement } : {}),
  };
  await stores.payments.saveResponse(payment.paymentId, stored);
  return stored;
}

/**
 * The transactions custody recorded for the payment that its refund may stand beside: those the
 * chain shows reverted (nothing moved), and a pull whose tokens the refusal gives back with it.
 * A chain that cannot be read vouches for nothing.
 */
async function undoneInCustody(deps: PipelineDeps, payment: Payment, error: DomainError): Promise<Set<string>> {
  const [pull, swap] = await deps.uow.run(async (s) => [await s.pulls.get(payment.paymentId), await s.swaps.get(payment.paymentId)] as const);
  const undone = new Set<string>();
  const reverted = async (chain: Pick<TokenIssuer, 'status'> | undefined, tx: CustodyTransaction) =>
    (await chain?.status(payment.network, tx.txHash, tx.rawTx).catch(() => null)) === 'reverted';
  if (pull && !isNotSent(pull) && ((error instanceof RefusedInCustody && error.giveBack) || (await reverted(deps.tokenIssuer, pull)))) undone.add(pull.txHash);
  if (swap && !isNotSent(swap) && (await reverted(deps.dex, swap))) undone.add(swap.txHash);
  return undone;
}

/** The settlement signed for its payer; without a receipt when there is no signer or signing fails. */
async function receipted(deps: PipelineDeps, settlement: SettlementReceipt, resourceUrl: string | null | undefined): Promise<SettlementReceipt> {
  if (!resourceUrl || !deps.receiptSigner) return settlement;
  try {
    return withReceipt(settlement, await deps.receiptSigner.signReceipt({ resourceUrl, payer: settlement.payer, network: settlement.network, transaction: settlement.transaction }));
  } catch (e) {
    deps.logger.warn('the receipt could not be signed; the answer goes out without one', {
      transaction: settlement.transaction,
      error: e instanceof Error ? e.message : String(e),
    });
    return settlement;
  }
}

/** Records the access a paid entrypoint leaves its payer, in the transaction that applies it (challenge.ts serves it). */
async function grantAccess(deps: PipelineDeps, stores: Stores, ep: AnyEntrypoint, payment: Payment): Promise<void> {
  if (!ep.grantsAccess || deps.accessGrantSeconds <= 0) return;
  const until = new Date(deps.clock.now().getTime() + deps.accessGrantSeconds * 1000);
  await stores.accessGrants.grant(payment.payer, ep.name, until);
}
