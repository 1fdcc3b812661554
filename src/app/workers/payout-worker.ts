/**
 * Sends queued payouts (sell proceeds, refunds) and follows them to the chain:
 *
 *   PENDING ──sign, record hash + raw tx (CAS), then broadcast──▶ SENT ──mined──▶ CONFIRMED
 *                                                                 │ reverted or dropped
 *                                                                 ▼
 *                                    PENDING again (retry with backoff) or FAILED after maxAttempts
 *
 * The signed transaction is recorded before it is broadcast, so a crash between the two is
 * healed by broadcasting the same transaction again — never a second transfer. A transfer that
 * can never be mined (its nonce taken by another transaction: "dropped") is signed again with a
 * fresh nonce; one that waits too long behind a nonce nobody fills (a signed transaction whose
 * record was lost, a node that forgot its pool) gets the gap filled, so none stays SENT for ever.
 */
import { transitionPayout, type Payout } from '../../domain/payout.js';
import { formatUsd } from '../../domain/money.js';
import type { Clock } from '../../ports/clock.js';
import type { Logger } from '../../ports/logger.js';
import type { PayoutSender } from '../../ports/payout-sender.js';
import type { Stores, UnitOfWork } from '../../ports/unit-of-work.js';
import { payoutView } from '../views.js';

export interface PayoutWorkerDeps {
  uow: UnitOfWork;
  clock: Clock;
  sender: PayoutSender;
  logger: Logger;
  maxAttempts: number;
  /** Delay before the n-th retry: base · 2^(n−1), capped. */
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** How long a SENT payout waits before its status is checked again. */
  confirmPollMs: number;
  /** A SENT payout still not mined after this long gets the nonce gap below it filled. */
  stuckAfterMs: number;
  /** Test-only: runs after a payout is recorded as SENT and before it is broadcast. */
  afterRecord?: (payout: Payout) => Promise<void>;
}

export class PayoutWorker {
  constructor(private readonly deps: PayoutWorkerDeps) {}

  /** One pass over the due payouts; returns how many it moved. */
  async runOnce(limit = 20): Promise<number> {
    const due = await this.deps.uow.read((s) => s.payouts.due(this.deps.clock.now(), limit));
    let moved = 0;
    for (const payout of due) {
      try {
        if (payout.state === 'PENDING') moved += (await this.send(payout)) ? 1 : 0;
        else if (payout.state === 'SENT') moved += (await this.follow(payout)) ? 1 : 0;
      } catch (e) {
        this.deps.logger.warn('payout step failed; will retry', { payoutId: payout.payoutId, error: (e as Error).message });
      }
    }
    return moved;
  }

  private async send(payout: Payout): Promise<boolean> {
    const now = this.deps.clock.now();
    const prepared = await this.deps.sender.prepare(payout);
    const sent = transitionPayout(payout, 'SENT', now, {
      txHash: prepared.txHash,
      rawTx: prepared.rawTx,
      attempts: payout.attempts + 1,
      nextAttemptAt: new Date(now.getTime() + this.deps.confirmPollMs),
      lastError: null,
    });
    let recorded: boolean;
    try {
      recorded = await this.deps.uow.transaction(async (stores) => {
        if (!(await stores.payouts.update(sent, 'PENDING'))) return false;
        await this.event(stores, 'payout.sent', sent, now);
        return true;
      });
    } catch (e) {
      this.deps.sender.release(payout.network); // never broadcast: its nonce goes back
      throw e;
    }
    if (!recorded) {
      this.deps.sender.release(payout.network); // another worker took it
      return false;
    }
    await this.deps.afterRecord?.(sent);
    await this.broadcast(sent);
    return true;
  }

  private async broadcast(payout: Payout): Promise<void> {
    try {
      await this.deps.sender.broadcast(payout.network, payout.rawTx!);
    } catch (e) {
      // Recorded already: the next pass finds it SENT and broadcasts the same transaction again.
      this.deps.logger.warn('payout broadcast failed; will retry', { payoutId: payout.payoutId, error: (e as Error).message });
    }
  }

  private async unblock(payout: Payout): Promise<void> {
    try {
      const filled = await this.deps.sender.unblock(payout.network, payout.rawTx!);
      if (filled > 0) this.deps.logger.warn('payout waited behind a nonce gap; gap filled', { payoutId: payout.payoutId, filled });
    } catch (e) {
      this.deps.logger.warn('filling a nonce gap failed; will retry', { payoutId: payout.payoutId, error: (e as Error).message });
    }
  }

  private async follow(payout: Payout): Promise<boolean> {
    const now = this.deps.clock.now();
    const status = await this.deps.sender.status(payout.network, payout.txHash!, payout.rawTx!);
    if (status === 'pending') {
      await this.broadcast(payout);
      // updatedAt stays the moment it was sent: it measures how long the transfer has waited.
      if (now.getTime() - payout.updatedAt.getTime() >= this.deps.stuckAfterMs) await this.unblock(payout);
      const later = { ...payout, nextAttemptAt: new Date(now.getTime() + this.deps.confirmPollMs) };
      return this.deps.uow.read((s) => s.payouts.update(later, 'SENT'));
    }
    if (status === 'confirmed') {
      const confirmed = transitionPayout(payout, 'CONFIRMED', now);
      return this.deps.uow.transaction(async (stores) => {
        if (!(await stores.payouts.update(confirmed, 'SENT'))) return false;
        await this.event(stores, 'payout.confirmed', confirmed, now);
        return true;
      });
    }
    // Reverted or dropped: nothing moved, so trying again cannot pay twice.
    const error = status === 'reverted' ? 'transfer reverted' : 'transfer dropped';
    const exhausted = payout.attempts >= this.deps.maxAttempts;
    const delay = Math.min(this.deps.backoffBaseMs * 2 ** Math.max(0, payout.attempts - 1), this.deps.backoffMaxMs);
    const next = exhausted
      ? transitionPayout(payout, 'FAILED', now, { lastError: error })
      : transitionPayout(payout, 'PENDING', now, { lastError: error, txHash: null, rawTx: null, nextAttemptAt: new Date(now.getTime() + delay) });
    return this.deps.uow.transaction(async (stores) => {
      if (!(await stores.payouts.update(next, 'SENT'))) return false;
      if (exhausted) await this.event(stores, 'payout.failed', next, now);
      this.deps.logger.warn('payout not delivered', { payoutId: payout.payoutId, error, exhausted, amount: formatUsd(payout.amount) });
      return true;
    });
  }

  private async event(stores: Stores, type: 'payout.sent' | 'payout.confirmed' | 'payout.failed', payout: Payout, now: Date) {
    await stores.events.append({ type, network: payout.network, tokenId: null, data: { payout: payoutView(payout) }, createdAt: now });
  }
}
