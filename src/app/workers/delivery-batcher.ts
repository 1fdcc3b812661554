/**
 * Deliveries in batches (docs/decisions/0035, src/domain/delivery-batch.ts): the deliveries
 * ready at one pass — first sends, tokens deployed — go out as one custody transaction per
 * network (LaunchFactory.deliver), with the outbox's rules:
 *
 * - **recorded before broadcast**: the batch and its signed transaction are written in the same
 *   database transaction that moves each of its deliveries PENDING → SENT (compare-and-set; one
 *   taken meanwhile rolls it all back and the nonce goes back), and only then broadcast; a crash
 *   in between is healed by broadcasting the same transaction again;
 * - **never twice**: a delivery is in at most one batch at a time, and leaves it only when the
 *   chain proves the batch moved nothing — reverted (all or none) or dropped (its nonce taken by
 *   another transaction); a batch is never signed again;
 * - **a failed batch is split**: its deliveries go back to PENDING and are each sent alone from
 *   then on (the single outbox takes any delivery with a past attempt), with its attempts,
 *   backoff and FAILED;
 * - **confirmed by its effect**: a batch mined as a success without the Transfer log of each of
 *   its deliveries (`no-effect`: the chain is not the books') is neither confirmed nor split: it
 *   stays SENT with its deliveries, in the error log and the metric each time it is looked at
 *   again, for an operator (docs/decisions/0066).
 *
 * Fewer than two ready deliveries on a network, or a network whose factory cannot batch, are
 * left to the single outbox (token-workers.ts), which runs right after.
 */
import type { Delivery } from '../../domain/delivery.js';
import type { NewEvent } from '../../domain/event.js';
import { newDeliveryBatch, transitionDeliveryBatch, type DeliveryBatch } from '../../domain/delivery-batch.js';
import { InvariantViolation } from '../../domain/errors.js';
import type { Network } from '../../domain/network.js';
import { transitionOutbox } from '../../domain/outbox.js';
import type { Clock } from '../../ports/clock.js';
import type { IdGenerator } from '../../ports/id-generator.js';
import type { Logger } from '../../ports/logger.js';
import type { CustodyTransfer, TokenIssuer } from '../../ports/token-issuer.js';
import type { Stores, UnitOfWork } from '../../ports/unit-of-work.js';
import { recordSigned } from '../custody/index.js';
import type { AppMetrics } from '../kit/metrics.js';
import { deliveryView } from '../kit/views.js';

export interface DeliveryBatcherDeps {
  uow: UnitOfWork;
  clock: Clock;
  issuer: TokenIssuer;
  ids: IdGenerator;
  logger: Logger;
  /** Most deliveries one batch carries (below 2: nothing is batched). */
  maxBatch: number;
  /** Sends a delivery gets before it is FAILED for an operator (the outbox's). */
  maxAttempts: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** How long a SENT batch waits before its status is read again. */
  confirmPollMs: number;
  /** A batch still not mined after this long gets the nonce gap below it filled. */
  stuckAfterMs: number;
  /** Test-only: after a batch is recorded, before it is broadcast. */
  afterRecord?: (batch: DeliveryBatch) => Promise<void>;
  /** Test-only: after a batch is broadcast. */
  afterBroadcast?: (batch: DeliveryBatch) => Promise<void>;
  /** Batches mined without their effect (docs/operations.md, "Metrics"). */
  metrics?: AppMetrics;
}

/** Batches a pass sends at most per network (a backlog drains over a few passes). */
const MAX_BATCHES_PER_PASS = 4;

/** A delivery of the batch being recorded was taken by another worker meanwhile. */
class Taken extends Error {}

const deliveryEvent = (type: 'delivery.sent' | 'delivery.confirmed' | 'delivery.failed', d: Delivery, now: Date): NewEvent => ({
  type,
  network: d.network,
  tokenId: d.tokenId,
  data: { delivery: deliveryView(d) },
  createdAt: now,
});

export class DeliveryBatcher {
  /** Deployed tokens' addresses and names, by token id: neither changes once deployed. */
  private readonly deployed = new Map<string, CustodyTransfer['token']>();

  constructor(private readonly deps: DeliveryBatcherDeps) {}

  /** Follows the batches due, then sends the deliveries ready; returns how many batches moved. */
  async runOnce(): Promise<number> {
    if (this.deps.maxBatch < 2) return 0;
    let moved = 0;
    const due = await this.deps.uow.run((s) => s.deliveryBatches.due(this.deps.clock.now(), 20));
    for (const batch of due) {
      try {
        if (await this.follow(batch)) moved++;
      } catch (e) {
        this.deps.logger.warn('delivery batch step failed; will retry', { batchId: batch.batchId, error: (e as Error).message });
      }
    }
    try {
      moved += await this.sendReady();
    } catch (e) {
      this.deps.logger.warn('sending delivery batches failed; will retry', { error: (e as Error).message });
    }
    return moved;
  }

  private async sendReady(): Promise<number> {
    const { uow, clock, maxBatch } = this.deps;
    const due = await uow.run((s) => s.deliveries.due(clock.now(), maxBatch * MAX_BATCHES_PER_PASS));
    // First sends only: a delivery with a past attempt (a batch that failed, a single send that
    // did) is the single outbox's, one transaction each.
    const fresh = due.filter((d) => d.state === 'PENDING' && d.attempts === 0);
    const byNetwork = new Map<Network, { delivery: Delivery; token: CustodyTransfer['token'] }[]>();
    for (const delivery of fresh) {
      const token = await this.tokenOf(delivery.tokenId);
      if (!token) continue; // its contract first
      const list = byNetwork.get(delivery.network) ?? [];
      list.push({ delivery, token });
      byNetwork.set(delivery.network, list);
    }
    let sent = 0;
    for (const [network, ready] of byNetwork) {
      for (let i = 0; i + 1 < ready.length; i += maxBatch) {
        const chunk = ready.slice(i, i + maxBatch);
        if (chunk.length < 2) break;
        const outcome = await this.send(network, chunk);
        if (outcome === 'unsupported') break;
        if (outcome === 'sent') sent++;
      }
    }
    return sent;
  }

  private async tokenOf(tokenId: string): Promise<CustodyTransfer['token'] | null> {
    const known = this.deployed.get(tokenId);
    if (known) return known;
    const token = await this.deps.uow.run((s) => s.tokens.get(tokenId));
    if (!token || token.deployment.state !== 'DEPLOYED' || !token.address) return null;
    const ref = { address: token.address, name: token.name };
    this.deployed.set(tokenId, ref);
    return ref;
  }

  private async send(network: Network, chunk: { delivery: Delivery; token: CustodyTransfer['token'] }[]): Promise<'sent' | 'taken' | 'unsupported'> {
    const { uow, issuer, clock, ids } = this.deps;
    const prepared = await issuer.prepareBatchTransfer(
      network,
      chunk.map(({ delivery, token }) => ({ token, to: delivery.wallet, amount: delivery.amount })),
    );
    if (!prepared) return 'unsupported';
    const now = clock.now();
    const batch = newDeliveryBatch({
      batchId: ids.next('dlb'),
      network,
      txHash: prepared.txHash,
      rawTx: prepared.rawTx,
      size: chunk.length,
      now,
      nextAttemptAt: new Date(now.getTime() + this.deps.confirmPollMs),
    });
    const recorded = await recordSigned(
      issuer,
      network,
      () =>
        uow
          .transaction(async (stores) => {
            await stores.deliveryBatches.record(batch);
            const events: NewEvent[] = [];
            for (const { delivery } of chunk) {
              const sent: Delivery = {
                ...transitionOutbox(delivery, 'SENT', now, { txHash: batch.txHash, rawTx: null, attempts: delivery.attempts + 1, nextAttemptAt: batch.nextAttemptAt, lastError: null }),
                batchId: batch.batchId,
              };
              await stores.deliveries.move(sent, 'PENDING', () => new Taken());
              events.push(deliveryEvent('delivery.sent', sent, now));
            }
            await stores.events.appendAll(events);
            return true;
          })
          .catch((e: unknown) => {
            if (e instanceof Taken) return false;
            throw e;
          }),
      (ok) => ok,
    );
    if (!recorded) return 'taken';
    await this.deps.afterRecord?.(batch);
    await this.broadcast(batch);
    await this.deps.afterBroadcast?.(batch);
    return 'sent';
  }

  private async broadcast(batch: DeliveryBatch): Promise<void> {
    try {
      await this.deps.issuer.broadcast(batch.network, batch.rawTx);
    } catch (e) {
      // Recorded already: the next pass finds it SENT and broadcasts the same transaction again.
      this.deps.logger.warn('delivery batch broadcast failed; will retry', { batchId: batch.batchId, error: (e as Error).message });
    }
  }

  private async follow(batch: DeliveryBatch): Promise<boolean> {
    const { uow, issuer, clock } = this.deps;
    const now = clock.now();
    const status = await issuer.status(batch.network, batch.txHash, batch.rawTx);
    if (status === 'pending') {
      await this.broadcast(batch);
      if (now.getTime() - batch.createdAt.getTime() >= this.deps.stuckAfterMs) {
        try {
          const filled = await issuer.unblock(batch.network, batch.rawTx);
          if (filled > 0) this.deps.logger.warn('delivery batch waited behind a nonce gap; gap filled', { batchId: batch.batchId, filled });
        } catch (e) {
          this.deps.logger.warn('filling a nonce gap failed; will retry', { batchId: batch.batchId, error: (e as Error).message });
        }
      }
      const later = transitionDeliveryBatch(batch, 'SENT', now, new Date(now.getTime() + this.deps.confirmPollMs));
      return uow.run((s) => s.deliveryBatches.update(later, 'SENT'));
    }
    if (status === 'no-effect') {
      // Not delivered, whatever the status says; and not to be sent again: the chain is not the books'.
      this.deps.metrics?.increment('transactions_without_effect_total', { kind: 'delivery_batch' });
      this.deps.logger.error(
        'delivery batch mined as a success without its Transfer logs: the chain is not the one the books were kept on; not confirmed, not sent again — an operator must look (docs/operations.md, "The books know their chain")',
        { batchId: batch.batchId, network: batch.network, txHash: batch.txHash, size: batch.size },
      );
      const later = transitionDeliveryBatch(batch, 'SENT', now, new Date(now.getTime() + this.deps.backoffMaxMs));
      await uow.run((s) => s.deliveryBatches.update(later, 'SENT'));
      return false;
    }
    if (status === 'confirmed') {
      return uow.transaction(async (stores) => {
        if (!(await stores.deliveryBatches.update(transitionDeliveryBatch(batch, 'CONFIRMED', now), 'SENT'))) return false;
        const events: NewEvent[] = [];
        for (const d of await this.members(stores, batch)) {
          const confirmed = transitionOutbox(d, 'CONFIRMED', now);
          await stores.deliveries.move(confirmed, 'SENT', () => movedAlone(d, batch));
          events.push(deliveryEvent('delivery.confirmed', confirmed, now));
        }
        await stores.events.appendAll(events);
        return true;
      });
    }
    // Reverted (all or none: nothing moved) or dropped (never mined): each delivery goes back, to be sent alone.
    const error = status === 'reverted' ? 'batch reverted' : 'batch dropped';
    const split = await uow.transaction(async (stores) => {
      if (!(await stores.deliveryBatches.update(transitionDeliveryBatch(batch, status === 'reverted' ? 'REVERTED' : 'DROPPED', now), 'SENT'))) return false;
      const failed: NewEvent[] = [];
      for (const d of await this.members(stores, batch)) {
        const exhausted = d.attempts >= this.deps.maxAttempts;
        const delay = Math.min(this.deps.backoffBaseMs * 2 ** Math.max(0, d.attempts - 1), this.deps.backoffMaxMs);
        const next: Delivery = exhausted
          ? { ...transitionOutbox(d, 'FAILED', now, { lastError: error }), batchId: null }
          : { ...transitionOutbox(d, 'PENDING', now, { lastError: error, txHash: null, rawTx: null, nextAttemptAt: new Date(now.getTime() + delay) }), batchId: null };
        await stores.deliveries.move(next, 'SENT', () => movedAlone(d, batch));
        if (exhausted) failed.push(deliveryEvent('delivery.failed', next, now));
      }
      await stores.events.appendAll(failed);
      return true;
    });
    if (split) this.deps.logger.warn('delivery batch not mined; its deliveries are sent alone', { batchId: batch.batchId, error, size: batch.size });
    return split;
  }

  /** The batch's deliveries, every one still SENT in it. */
  private async members(stores: Stores, batch: DeliveryBatch): Promise<Delivery[]> {
    const members = await stores.deliveries.inBatch(batch.batchId);
    if (members.length !== batch.size || members.some((d) => d.state !== 'SENT')) {
      throw new InvariantViolation(`delivery batch ${batch.batchId} carries ${batch.size} deliveries, ${members.filter((d) => d.state === 'SENT').length} found SENT in it`);
    }
    return members;
  }
}

/** A member of a batch found out of the state its batch left it in: nothing else moves a batched delivery. */
const movedAlone = (d: Delivery, batch: DeliveryBatch) => new InvariantViolation(`delivery ${d.deliveryId} of batch ${batch.batchId} moved on its own`);
