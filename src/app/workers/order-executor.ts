/**
 * The order executor (docs/api.md "Orders"): woken after every commit that touches a token (a
 * trade, a pool's opening — the change feed tells this process of its own commits and of other
 * processes'), it executes the token's crossed orders (orders/execute-orders.ts) one token at a
 * time, off the request that committed. Each worker pass also runs it over every token with
 * OPEN orders (a price the service did not trade itself: a pool moved by outsiders), carries on
 * the orders left EXECUTING, and expires the orders past their time.
 *
 * One execution runs at a time in this process: the carrying on of EXECUTING orders queues behind
 * a drain (whose collect or pull may be waiting on the chain) and never beside it; two processes
 * racing for one order are kept apart by the order's compare-and-set (OPEN → EXECUTING) and by
 * the resume taking up only orders older than the chain wait (orders/execute-orders.ts).
 */
import type { ChangeFeed } from '../../ports/change-feed.js';
import type { AppDeps } from '../kit/deps.js';
import type { AppMetrics } from '../kit/metrics.js';
import { executeCrossed, expireOrders, resumeExecuting } from '../orders/index.js';

type Deps = AppDeps & { metrics?: AppMetrics };

export class OrderExecutor {
  private readonly woken = new Set<string>();
  /** The work of this process, one piece after the other: drains and resumes never overlap. */
  private queue: Promise<void> = Promise.resolve();
  private draining = false;
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly deps: Deps) {}

  /** Follows the change feed: each committed token wakes the executor for it (after the commit, never inside it). */
  follow(feed: ChangeFeed | null | undefined): void {
    this.unsubscribe = feed?.subscribe((tokenId) => (tokenId ? this.wake(tokenId) : undefined)) ?? null;
  }

  /** Executes `tokenId`'s crossed orders soon, in this process's one queue. */
  wake(tokenId: string): void {
    if (!(this.deps.custody?.signing() ?? true)) return; // the process that signs for custody executes
    this.woken.add(tokenId);
    if (this.draining) return;
    this.draining = true;
    void this.serial(() => new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.drain()));
  }

  /** Resolves once every woken token has been looked at (tests wait for this). */
  async idle(): Promise<void> {
    do await this.queue;
    while (this.draining);
  }

  /** A worker pass: expire, carry on EXECUTING orders, then every token with OPEN orders. */
  async runOnce(): Promise<void> {
    // An order that cannot move now (the chain does not answer) never holds up the other workers of the pass.
    await expireOrders(this.deps).catch((e: unknown) => this.warn('expiring orders failed', e));
    await this.serial(() => resumeExecuting(this.deps).then(() => undefined)).catch((e: unknown) => this.warn('carrying on executing orders failed', e));
    for (const tokenId of await this.deps.uow.run((s) => s.orders.tokensWithOpen())) this.woken.add(tokenId);
    if (!this.draining) {
      this.draining = true;
      void this.serial(() => this.drain());
    }
    await this.idle();
  }

  stop(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = null;
    return this.idle();
  }

  private warn(what: string, e: unknown, fields: Record<string, unknown> = {}): void {
    this.deps.logger?.warn(`${what}; the next pass retries`, { ...fields, error: (e as Error).message });
  }

  /** Runs `work` once everything queued before it is done; its failure does not stop what follows. */
  private serial(work: () => Promise<void>): Promise<void> {
    const run = this.queue.then(work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async drain(): Promise<void> {
    try {
      while (this.woken.size > 0) {
        const tokenId = this.woken.values().next().value!;
        this.woken.delete(tokenId);
        await executeCrossed(this.deps, tokenId).catch((e: unknown) => this.warn('executing orders failed', e, { tokenId }));
      }
    } finally {
      this.draining = false;
    }
  }
}
