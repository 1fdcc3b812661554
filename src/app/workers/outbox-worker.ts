/**
 * Sends an outbox (src/domain/outbox.ts) to the chain and follows it:
 *
 *   PENDING ──sign, record hash + raw tx (CAS), then broadcast──▶ SENT ──mined──▶ CONFIRMED
 *                                                                 │ reverted or dropped
 *                                                                 ▼
 *                                    PENDING again (retry with backoff) or FAILED after maxAttempts
 *
 * A transaction mined as a success without its effect (`no-effect`: no Transfer log of what it
 * was to move, no token minted where it was to be deployed) is neither: the chain is not the one
 * the books were kept on, or not the one it was signed for (docs/decisions/0066). It stays SENT —
 * never CONFIRMED, never signed again (on the right chain the same transaction may still be
 * mined) — with an error in the log and a metric each time it is looked at again, every
 * `backoffMaxMs`, until an operator has put the chain right.
 *
 * The signed transaction is recorded before it is broadcast, so a crash between the two is
 * healed by broadcasting the same transaction again — never a second one (custody's one rule for
 * what it sends: app/custody/exactly-once-sender.ts). A transaction that can never be mined (its
 * nonce taken by another: "dropped") is signed again with a fresh nonce; one
 * that waits too long behind a nonce nobody fills (a signed transaction whose record was lost, a
 * node that forgot its pool) gets the gap filled, so no item stays SENT for ever.
 *
 * One engine for every kind of item: what differs (the store, how the transaction is made, what
 * else happens when it is sent, mined or given up) comes in through an `OutboxKind`.
 */
import { transitionOutbox, type OutboxFields } from '../../domain/outbox.js';
import type { Clock } from '../../ports/clock.js';
import type { OutboxStore } from '../../ports/outbox-store.js';
import type { Logger } from '../../ports/logger.js';
import type { TransactionSender } from '../../ports/transaction-sender.js';
import type { Stores, UnitOfWork } from '../../ports/unit-of-work.js';
import { recordSigned } from '../custody/index.js';
import type { AppMetrics } from '../kit/metrics.js';

/** What one kind of outbox item needs from the engine's caller. */
export interface OutboxKind<T extends OutboxFields> {
  /** For log lines: `payout`, `delivery`, `deployment`. */
  name: string;
  idOf(item: T): string;
  due(stores: Stores, now: Date, limit: number): Promise<T[]>;
  /** Compare-and-set on the state. */
  update(stores: Stores, next: T, from: T['state']): Promise<boolean>;
  /** Signs the item's transaction (not sent), or `null` when it cannot be sent yet. */
  prepare(item: T): Promise<{ txHash: string; rawTx: string } | null>;
  /** Whether what the item would do is already on chain (a token someone deployed): nothing to send. */
  alreadyDone?(item: T): Promise<boolean>;
  /** Why the item can never be sent (FAILED at once, no retries, an error in the log), or null. */
  impossible?(item: T): Promise<string | null>;
  /** Read from the chain once the item is mined, before the transaction that records it. */
  minedDetails?(item: T): Promise<Partial<T>>;
  /** In the transaction that records each move: events, and what else the move changes. */
  onSent?(stores: Stores, item: T, now: Date): Promise<void>;
  onConfirmed?(stores: Stores, item: T, now: Date): Promise<void>;
  onFailed?(stores: Stores, item: T, now: Date): Promise<void>;
}

/** The store side of a kind: its name, its id, and which outbox store of a unit of work holds it. */
export function outboxStoreOf<T extends OutboxFields>(
  name: string,
  idOf: (item: T) => string,
  store: (stores: Stores) => OutboxStore<T>,
): Pick<OutboxKind<T>, 'name' | 'idOf' | 'due' | 'update'> {
  return {
    name,
    idOf,
    due: (stores, now, limit) => store(stores).due(now, limit),
    update: (stores, next, from) => store(stores).update(next, from),
  };
}

export interface OutboxWorkerDeps<T extends OutboxFields> {
  uow: UnitOfWork;
  clock: Clock;
  sender: TransactionSender;
  logger: Logger;
  kind: OutboxKind<T>;
  maxAttempts: number;
  /** Delay before the n-th retry: base · 2^(n−1), capped. */
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** How long a SENT item waits before its status is checked again. */
  confirmPollMs: number;
  /** A SENT item still not mined after this long gets the nonce gap below it filled. */
  stuckAfterMs: number;
  /** How long a PENDING item that cannot be sent yet waits before it is asked again. */
  notReadyPollMs?: number;
  /** Test-only: runs after an item is recorded as SENT and before it is broadcast. */
  afterRecord?: (item: T) => Promise<void>;
  /** Confirmation latency, transactions signed again for a taken nonce, reverts (docs/operations.md, "Metrics"). */
  metrics?: AppMetrics;
}

export class OutboxWorker<T extends OutboxFields> {
  constructor(private readonly deps: OutboxWorkerDeps<T>) {}

  private get kind(): OutboxKind<T> {
    return this.deps.kind;
  }

  /** One pass over the due items; returns how many it moved. */
  async runOnce(limit = 20): Promise<number> {
    const due = await this.deps.uow.run((s) => this.kind.due(s, this.deps.clock.now(), limit));
    let moved = 0;
    for (const item of due) {
      try {
        if (item.state === 'PENDING') moved += (await this.send(item)) ? 1 : 0;
        else if (item.state === 'SENT') moved += (await this.follow(item)) ? 1 : 0;
      } catch (e) {
        this.deps.logger.warn(`${this.kind.name} step failed; will retry`, { id: this.kind.idOf(item), error: (e as Error).message });
      }
    }
    return moved;
  }

  private async send(item: T): Promise<boolean> {
    const now = this.deps.clock.now();
    if (await this.kind.alreadyDone?.(item)) return this.confirm(item, transitionOutbox(item, 'CONFIRMED', now), 'PENDING', now);
    const never = await this.kind.impossible?.(item);
    if (never) return this.giveUp(item, never, now);
    const prepared = await this.kind.prepare(item);
    if (!prepared) {
      const later = { ...item, nextAttemptAt: new Date(now.getTime() + (this.deps.notReadyPollMs ?? this.deps.confirmPollMs)) };
      return this.deps.uow.run((s) => this.kind.update(s, later, 'PENDING'));
    }
    const sent = transitionOutbox(item, 'SENT', now, {
      txHash: prepared.txHash,
      rawTx: prepared.rawTx,
      attempts: item.attempts + 1,
      nextAttemptAt: new Date(now.getTime() + this.deps.confirmPollMs),
      lastError: null,
    });
    // Not recorded (another worker took it, or the write failed): never broadcast, its nonce goes back.
    const recorded = await recordSigned(
      this.deps.sender,
      item.network,
      () =>
        this.deps.uow.transaction(async (stores) => {
          if (!(await this.kind.update(stores, sent, 'PENDING'))) return false;
          await this.kind.onSent?.(stores, sent, now);
          return true;
        }),
      (ok) => ok,
    );
    if (!recorded) return false;
    await this.deps.afterRecord?.(sent);
    await this.broadcast(sent);
    return true;
  }

  private async broadcast(item: T): Promise<void> {
    try {
      await this.deps.sender.broadcast(item.network, item.rawTx!);
    } catch (e) {
      // Recorded already: the next pass finds it SENT and broadcasts the same transaction again.
      this.deps.logger.warn(`${this.kind.name} broadcast failed; will retry`, { id: this.kind.idOf(item), error: (e as Error).message });
    }
  }

  private async unblock(item: T): Promise<void> {
    try {
      const filled = await this.deps.sender.unblock(item.network, item.rawTx!);
      if (filled > 0) this.deps.logger.warn(`${this.kind.name} waited behind a nonce gap; gap filled`, { id: this.kind.idOf(item), filled });
    } catch (e) {
      this.deps.logger.warn('filling a nonce gap failed; will retry', { id: this.kind.idOf(item), error: (e as Error).message });
    }
  }

  /** Retrying cannot help: FAILED now, for an operator. */
  private async giveUp(item: T, reason: string, now: Date): Promise<boolean> {
    const failed = transitionOutbox(item, 'FAILED', now, { lastError: reason });
    const moved = await this.deps.uow.transaction(async (stores) => {
      if (!(await this.kind.update(stores, failed, 'PENDING'))) return false;
      await this.kind.onFailed?.(stores, failed, now);
      return true;
    });
    if (moved) this.deps.logger.error(`${this.kind.name} can never be sent; FAILED`, { id: this.kind.idOf(item), reason });
    return moved;
  }

  private confirm(item: T, confirmed: T, from: T['state'], now: Date): Promise<boolean> {
    return this.deps.uow.transaction(async (stores) => {
      if (!(await this.kind.update(stores, confirmed, from))) return false;
      await this.kind.onConfirmed?.(stores, confirmed, now);
      return true;
    });
  }

  /** Mined as a success that did not do what it was signed for: held SENT for an operator, looked at again later. */
  private async hold(item: T, now: Date): Promise<boolean> {
    const error = 'mined as a success without its effect (no Transfer log of what it moves, or no token where it deploys): the chain is not the one the books were kept on';
    this.deps.metrics?.increment('transactions_without_effect_total', { kind: this.kind.name });
    this.deps.logger.error(`${this.kind.name} ${error}; not confirmed, not sent again — an operator must look (docs/operations.md, "The books know their chain")`, {
      id: this.kind.idOf(item),
      network: item.network,
      txHash: item.txHash,
    });
    const later = { ...item, lastError: error, nextAttemptAt: new Date(now.getTime() + this.deps.backoffMaxMs) };
    await this.deps.uow.run((s) => this.kind.update(s, later, 'SENT'));
    return false;
  }

  private async follow(item: T): Promise<boolean> {
    const now = this.deps.clock.now();
    const status = await this.deps.sender.status(item.network, item.txHash!, item.rawTx!);
    if (status === 'pending') {
      await this.broadcast(item);
      // updatedAt stays the moment it was sent: it measures how long the transaction has waited.
      if (now.getTime() - item.updatedAt.getTime() >= this.deps.stuckAfterMs) await this.unblock(item);
      const later = { ...item, nextAttemptAt: new Date(now.getTime() + this.deps.confirmPollMs) };
      return this.deps.uow.run((s) => this.kind.update(s, later, 'SENT'));
    }
    if (status === 'no-effect') return this.hold(item, now);
    if (status === 'confirmed') {
      const details = (await this.kind.minedDetails?.(item)) ?? {};
      const confirmed = await this.confirm(item, transitionOutbox({ ...item, ...details }, 'CONFIRMED', now), 'SENT', now);
      // updatedAt is the moment it was sent (see above).
      if (confirmed) this.deps.metrics?.observe('confirmation_duration_seconds', (now.getTime() - item.updatedAt.getTime()) / 1000, { kind: this.kind.name });
      return confirmed;
    }
    // Reverted or dropped: nothing moved, so trying again cannot send twice.
    this.deps.metrics?.increment(status === 'reverted' ? 'transactions_reverted_total' : 'nonce_retries_total', { kind: this.kind.name });
    const error = status === 'reverted' ? 'transaction reverted' : 'transaction dropped';
    const exhausted = item.attempts >= this.deps.maxAttempts;
    const delay = Math.min(this.deps.backoffBaseMs * 2 ** Math.max(0, item.attempts - 1), this.deps.backoffMaxMs);
    const next = exhausted
      ? transitionOutbox(item, 'FAILED', now, { lastError: error })
      : transitionOutbox(item, 'PENDING', now, { lastError: error, txHash: null, rawTx: null, nextAttemptAt: new Date(now.getTime() + delay) });
    return this.deps.uow.transaction(async (stores) => {
      if (!(await this.kind.update(stores, next, 'SENT'))) return false;
      if (exhausted) await this.kind.onFailed?.(stores, next, now);
      this.deps.logger.warn(`${this.kind.name} not mined`, { id: this.kind.idOf(item), error, exhausted });
      return true;
    });
  }
}
