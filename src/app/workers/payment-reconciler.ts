/**
 * Finishes payments whose request could not: a crash before settlement (VERIFIED: closed as
 * REJECTED, nothing charged), a settlement that timed out (SETTLING) or a crash after
 * settlement (SETTLED). It asks the chain whether the authorization was used; used →
 * apply the operation (or refund it), unused and expired → FAILED (nothing was charged).
 * Compare-and-set on every move means a reconciler racing a live request applies nothing twice.
 */
import { DomainError, PaymentInvalid, ServiceUnavailable } from '../../domain/errors.js';
import { transitionPayment, type Payment } from '../../domain/payment.js';
import type { AuthorizationReader } from '../../ports/authorization-reader.js';
import type { Logger } from '../../ports/logger.js';
import type { AppDeps } from '../deps.js';
import type { AnyEntrypoint } from '../entrypoints.js';
import { errorEnvelope, statusOf } from '../error-status.js';
import type { PaymentFlow } from '../payments/payment-flow.js';

export interface ReconcilerDeps extends AppDeps {
  flow: PaymentFlow;
  entrypoints: ReadonlyMap<string, AnyEntrypoint>;
  chain: AuthorizationReader;
  logger: Logger;
  /** A payment is left to its own request for this long before the reconciler takes it. */
  graceMs: number;
  /**
   * A settled payment whose operation still fails (not a business refusal: a bug, a broken
   * record) this long after settlement is refunded rather than retried for ever.
   */
  refundAfterMs: number;
}

export class PaymentReconciler {
  constructor(private readonly deps: ReconcilerDeps) {}

  async runOnce(limit = 50): Promise<number> {
    const now = this.deps.clock.now();
    const before = new Date(now.getTime() - this.deps.graceMs);
    const [verified, settling, settled] = await this.deps.uow.read(async (s) => [
      await s.payments.listByState('VERIFIED', before, limit),
      await s.payments.listByState('SETTLING', before, limit),
      await s.payments.listByState('SETTLED', before, limit),
    ]);
    let done = 0;
    for (const p of verified) done += (await this.step(() => this.closeUnsettled(p), p)) ? 1 : 0;
    for (const p of settling) done += (await this.step(() => this.resolveSettling(p), p)) ? 1 : 0;
    for (const p of settled) done += (await this.step(() => this.applySettled(p), p)) ? 1 : 0;
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

  /** A request died between verification and settlement: nothing was charged, and nothing will be. */
  private async closeUnsettled(p: Payment): Promise<boolean> {
    const rejected = transitionPayment(p, 'REJECTED', this.deps.clock.now());
    const error = new ServiceUnavailable(
      'The request was interrupted before the payment was settled; nothing was charged. Sign a new payment to try again.',
      5,
      { reason: 'interrupted_before_settlement' },
    );
    return this.deps.uow.transaction(async (s) => {
      if (!(await s.payments.update(rejected, 'VERIFIED'))) return false;
      await s.payments.saveResponse(p.paymentId, {
        status: statusOf(error.code),
        body: errorEnvelope(error.code, error.message, error.details),
        headers: { 'Retry-After': '5' },
      });
      return true;
    });
  }

  private async resolveSettling(p: Payment): Promise<boolean> {
    const onChain = await this.deps.chain.authorization(p.network, p.payer, p.nonce);
    const now = this.deps.clock.now();
    if (onChain.used) {
      const settled = transitionPayment(p, 'SETTLED', now, { settlementTx: onChain.transaction });
      if (!(await this.deps.uow.read((s) => s.payments.update(settled, 'SETTLING')))) return false;
      this.deps.logger.info('reconciler: settlement found on chain', { paymentId: p.paymentId, tx: onChain.transaction });
      return this.applySettled(settled);
    }
    if (BigInt(Math.floor(now.getTime() / 1000)) < p.validBefore) return false; // may still be mined
    const failed = transitionPayment(p, 'FAILED', now);
    const error = new PaymentInvalid('The payment was never settled and its authorization has expired; nothing was charged.', {
      reason: 'settlement_expired',
    });
    return this.deps.uow.transaction(async (s) => {
      if (!(await s.payments.update(failed, 'SETTLING'))) return false;
      await s.payments.saveResponse(p.paymentId, {
        status: statusOf(error.code),
        body: errorEnvelope(error.code, error.message, error.details),
        headers: {},
      });
      return true;
    });
  }

  private async applySettled(p: Payment): Promise<boolean> {
    const ep = this.deps.entrypoints.get(p.resource);
    if (!ep) throw new Error(`payment ${p.paymentId} names an unknown entrypoint ${p.resource}`);
    const caller = { wallet: p.payer, network: p.network };
    const settlement = { transaction: p.settlementTx ?? '', network: p.network, payer: p.payer };
    let input: unknown;
    let prepared;
    try {
      input = ep.parse(p.input);
      prepared = await ep.prepare(this.deps, input, caller);
      if (prepared.amount !== p.amount) {
        throw new PaymentInvalid('The price changed before the payment could be applied.', { reason: 'price_changed' });
      }
    } catch (e) {
      if (!(e instanceof DomainError) || e.code === 'INTERNAL_ERROR') throw e;
      await this.deps.flow.refund(p, e, {});
      return true;
    }
    const response = await this.deps.flow.apply(p, ep, input, prepared, caller, settlement);
    if (response.status !== 202) return true;
    if (this.deps.clock.now().getTime() - p.updatedAt.getTime() < this.deps.refundAfterMs) return false;
    this.deps.logger.error('a settled payment could not be applied for too long; refunding it', { paymentId: p.paymentId });
    await this.deps.flow.refund(
      p,
      new ServiceUnavailable('The operation could not be applied; the payment is refunded.', 5, { reason: 'apply_failed' }),
      {},
    );
    return true;
  }
}
