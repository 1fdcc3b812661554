/**
 * Finishes payments whose request could not, from what the chain says, by running the steps of a
 * paid request (src/app/payments/pipeline/) from where the payment stopped:
 *
 *   VERIFIED  (died before settling)        → the claim's release: REJECTED, we never submitted
 *                                             it, nothing charged
 *   SETTLING  (settlement did not confirm)  → used on chain → SETTLED → the application step
 *                                             (applied, or refunded)
 *                                             unused and unusable (cancelled, or unused at a
 *                                             block past validBefore) → released FAILED, nothing charged
 *                                             unused and still usable → wait: it may be mined
 *                                             (an upto payment: its Permit2 nonce and the proxy's
 *                                             settlement of it are read instead of EIP-3009's state)
 *   SETTLED   (died after settling)         → the application step: applied, or refunded when
 *                                             refused now; still failing 15 minutes on: refunded,
 *                                             unless custody sent a pull or swap of it that did
 *                                             not revert — then left for an operator
 *
 * Safety net: FAILED and REJECTED payments of the last day are read on chain again, slowly; an
 * authorization found used after all (a bug, or a third party submitting the signed
 * authorization) is logged as an error and refunded — the payer never loses the money.
 *
 * Compare-and-set on every move means a reconciler racing a live request applies nothing twice.
 */
import { DomainError, PaymentInvalid, ServiceUnavailable } from '../../domain/errors.js';
import { settlementOutcome, type Payment, type PaymentState } from '../../domain/payment.js';
import type { AuthorizationOnChain, AuthorizationReader } from '../../ports/authorization-reader.js';
import type { AnyEntrypoint } from '../kit/catalogue/entrypoint.js';
import { PAYMENT_REASONS, type PipelineDeps, markSettled, refund, release, resumeApplication, settledOnChain } from '../payments/index.js';
import { RefundBesideCustody } from '../kit/paid.js';

export interface ReconcilerDeps extends PipelineDeps {
  entrypoints: ReadonlyMap<string, AnyEntrypoint>;
  chain: AuthorizationReader;
  /** A payment is left to its own request for this long before the reconciler takes it. */
  graceMs: number;
  /**
   * A settled payment whose operation still fails (not a business refusal: a bug, a broken
   * record) this long after settlement is refunded rather than retried for ever.
   */
  refundAfterMs: number;
  /** How far back the safety net re-reads closed payments, and how often it sweeps. */
  safetyNetWindowMs?: number;
  safetyNetIntervalMs?: number;
}

type Sweep = { cursor: { updatedAt: Date; paymentId: string }; restartAt: number };

export class PaymentReconciler {
  private readonly sweeps = new Map<PaymentState, Sweep>();

  constructor(private readonly deps: ReconcilerDeps) {}

  async runOnce(limit = 50): Promise<number> {
    const now = this.deps.clock.now();
    const before = new Date(now.getTime() - this.deps.graceMs);
    const [verified, settling, settled] = await this.deps.uow.run(async (s) => [
      await s.payments.listByState('VERIFIED', before, limit),
      await s.payments.listByState('SETTLING', before, limit),
      await s.payments.listByState('SETTLED', before, limit),
    ]);
    let done = 0;
    for (const p of verified) done += (await this.step(() => this.closeUnsettled(p), p)) ? 1 : 0;
    for (const p of settling) done += (await this.step(() => this.resolveSettling(p), p)) ? 1 : 0;
    for (const p of settled) done += (await this.step(() => this.applySettled(p), p)) ? 1 : 0;
    for (const state of ['FAILED', 'REJECTED'] as const) done += await this.safetyNet(state, limit);
    return done;
  }

  private async step(fn: () => Promise<boolean>, p: Payment): Promise<boolean> {
    try {
      return await fn();
    } catch (e) {
      this.deps.logger.warn('reconciling a payment failed; will retry', { paymentId: p.paymentId, error: (e as Error).message });
      return false;
    }
  }

  /** A request died between verification and settlement: we never submitted it. */
  private async closeUnsettled(p: Payment): Promise<boolean> {
    const error = new ServiceUnavailable(
      'The request was interrupted before the payment was settled; nothing was charged. Sign a new payment to try again.',
      5,
      { reason: PAYMENT_REASONS.interruptedBeforeSettlement },
    );
    return this.close(p, 'REJECTED', error, { 'Retry-After': '5' });
  }

  private async resolveSettling(p: Payment): Promise<boolean> {
    const onChain = await this.onChain(p);
    const outcome = settlementOutcome(onChain, p.validBefore);
    if (outcome === 'unknown') return false; // may still be mined
    if (outcome === 'failed') {
      const error = new PaymentInvalid(
        'The payment was never settled and its authorization can no longer be used; nothing was charged.',
        { reason: PAYMENT_REASONS.settlementFailed, authorization: onChain.state },
      );
      return this.close(p, 'FAILED', error);
    }
    const settled = await markSettled(this.deps, p, onChain.transaction);
    if (!settled) return false;
    this.deps.logger.info('reconciler: settlement found on chain', { paymentId: p.paymentId, tx: onChain.transaction });
    return this.applySettled(settled);
  }

  /**
   * What the chain says of the payment's authorization: an EIP-3009 authorization's state; for an
   * upto payment (docs/payments.md "Pay up to"), its Permit2 transfer — its nonce unspent, spent
   * by the upto proxy's settlement to the treasury, or spent otherwise (nothing paid under it).
   */
  private onChain(p: Payment): Promise<AuthorizationOnChain> {
    if (p.scheme === 'upto') return this.deps.chain.permit2Transfer(p.network, { owner: p.payer, nonce: p.nonce, to: this.deps.settings.payTo[p.network], amount: p.amount, asset: p.asset });
    return this.deps.chain.authorization(p.network, p.payer, p.nonce, p.asset);
  }

  private async close(p: Payment, to: 'REJECTED' | 'FAILED', error: DomainError, headers: Record<string, string> = {}): Promise<boolean> {
    const closedNow = (await release(this.deps, p, to, error, headers)) !== null;
    if (closedNow) this.deps.logger.info(`reconciler: payment ${to}; nothing charged`, { paymentId: p.paymentId, payer: p.payer });
    return closedNow;
  }

  private async applySettled(p: Payment): Promise<boolean> {
    const ep = this.deps.entrypoints.get(p.resource);
    if (!ep) throw new Error(`payment ${p.paymentId} names an unknown entrypoint ${p.resource}`);
    const outcome = await resumeApplication(this.deps, ep, p);
    if (outcome.kind !== 'pending') return true;
    const now = this.deps.clock.now();
    if (now.getTime() - p.updatedAt.getTime() < this.deps.refundAfterMs) return false;
    const error = new ServiceUnavailable('The operation could not be applied; the payment is refunded.', 5, { reason: PAYMENT_REASONS.applyFailed });
    try {
      await refund(this.deps, p, error, settledOnChain(p, p.settlementTx));
    } catch (e) {
      if (!(e instanceof RefundBesideCustody)) throw e;
      // Never given up while custody's transaction of it may have moved money: a refund beside a
      // mined swap pays twice, beside a mined pull keeps the seller's tokens (decision 0061). It
      // is an operator's — counted, logged — and moves to the back of the batch, so that such
      // payments never crowd out the ones behind them; the reconciler still tries it each pass.
      this.deps.metrics.increment('payments_stuck_in_custody_total');
      this.deps.logger.error('a settled payment could not be applied for too long, and custody sent its transaction: not refunded; an operator must finish it', {
        paymentId: p.paymentId,
        transaction: e.transaction,
      });
      await this.deps.uow.transaction((s) => s.payments.update({ ...p, updatedAt: now }, 'SETTLED'));
      return false;
    }
    this.deps.logger.error('a settled payment could not be applied for too long; refunded', { paymentId: p.paymentId });
    return true;
  }

  /** Re-reads closed, never-settled payments on chain, a few per pass, one sweep per interval. */
  private async safetyNet(state: 'FAILED' | 'REJECTED', limit: number): Promise<number> {
    const now = this.deps.clock.now().getTime();
    const windowMs = this.deps.safetyNetWindowMs ?? 24 * 3_600_000;
    let sweep = this.sweeps.get(state);
    if (!sweep) {
      sweep = { cursor: { updatedAt: new Date(now - windowMs), paymentId: '' }, restartAt: 0 };
      this.sweeps.set(state, sweep);
    }
    if (now < sweep.restartAt) return 0;
    const batch = await this.deps.uow.run((s) => s.payments.listAfter(state, sweep.cursor, limit));
    let found = 0;
    for (const p of batch) {
      try {
        const onChain = await this.onChain(p);
        if (onChain.state === 'used' && (await this.refundUsedAfterClose(p, state, onChain.transaction))) found += 1;
      } catch (e) {
        this.deps.logger.warn('safety net: reading a closed payment failed; will retry', { paymentId: p.paymentId, error: (e as Error).message });
        return found; // the cursor stays: this payment is read again next pass
      }
      sweep.cursor = { updatedAt: p.updatedAt, paymentId: p.paymentId };
    }
    if (batch.length < limit) {
      // The end of the window: start over after the interval.
      sweep.cursor = { updatedAt: new Date(now - windowMs), paymentId: '' };
      sweep.restartAt = now + (this.deps.safetyNetIntervalMs ?? 60_000);
    }
    return found;
  }

  private async refundUsedAfterClose(p: Payment, state: 'FAILED' | 'REJECTED', transaction: string | null): Promise<boolean> {
    this.deps.metrics.increment('payments_used_after_close_total');
    this.deps.logger.error('SAFETY NET: a payment closed as unsettled was used on chain; refunding it', {
      paymentId: p.paymentId,
      payer: p.payer,
      state: p.state,
      amount: p.amount.toString(),
      transaction,
    });
    const error = new PaymentInvalid('The payment had been closed unsettled, but its authorization was used on chain.', {
      reason: PAYMENT_REASONS.usedAfterClose,
    });
    try {
      await refund(this.deps, p, error, settledOnChain(p, transaction), state);
      return true;
    } catch (e) {
      if (e instanceof DomainError) return false; // moved meanwhile: refunded elsewhere
      throw e;
    }
  }
}
