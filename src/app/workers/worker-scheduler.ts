/**
 * The workers that run beside the HTTP server (docs/architecture.md, "Workers") and the timer that
 * runs them. A pass runs every worker once, in a fixed order: tokens from before tokens went on
 * chain are taken on chain first (once per process, before the outboxes), then the reconciler,
 * the raises, the orders and the vested dev buys' releases, the outboxes (deployments, deliveries, graduations), the transfer indexer, the earnings payer,
 * payouts and the purges. Started, it runs a pass `intervalMs` after the previous one ended —
 * never two at once — and a failed pass is logged and the next one runs as usual.
 *
 * Only the process that signs for custody runs passes (docs/decisions/0031): every pass first
 * claims custody's signer lock; a process that cannot (another live process holds it) stands by
 * and claims again on its next pass, so it takes over within a pass of the holder's death. The
 * signer also answers other processes' custody intents as soon as they are asked, between passes.
 */
import type { Delivery } from '../../domain/delivery.js';
import type { DeliveryBatch } from '../../domain/delivery-batch.js';
import type { Deployment } from '../../domain/deployment.js';
import type { Graduation } from '../../domain/graduation.js';
import { ALL_NETWORKS } from '../../domain/network.js';
import type { AuthorizationReader } from '../../ports/authorization-reader.js';
import type { DexRouter } from '../../ports/dex-router.js';
import type { PayoutSender } from '../../ports/payout-sender.js';
import type { TransferLogReader } from '../../ports/transfer-log-reader.js';
import type { Application } from '../application.js';
import type { Tunables } from '../kit/tunables.js';
import type { CustodyLease } from '../kit/custody-lease.js';
import { answerIntents } from '../custody/index.js';
import { claimChannels, CLAIM_DEFAULTS, purgeSpentProofs, type ClaimPassOptions } from '../payments/index.js';
import { PaymentReconciler } from './payment-reconciler.js';
import { EarningsPayer } from './earnings-payer.js';
import { PayoutWorker, type PayoutWorkerDeps } from './payout-worker.js';
import { QuotePurger } from './quote-purger.js';
import { RaiseSettler } from './raise-settler.js';
import { backfillTokens } from './token-backfill.js';
import { DeliveryWorker, DeploymentWorker } from './token-workers.js';
import { GraduationWorker } from './graduation-worker.js';
import { OrderExecutor } from './order-executor.js';
import { TransferIndexer, type TransferIndexerDeps } from './transfer-indexer.js';
import { VestingReleaser, type VestingReleaserDeps } from './vesting-releaser.js';

export interface WorkerSchedulerDeps {
  /** The use cases' ports (store, clock, ids, token issuer, logger, metrics) and the paid entrypoints the reconciler resumes. */
  application: Application;
  /** Sends payouts (sell proceeds, refunds) from the treasury. */
  payoutSender: PayoutSender;
  /** Where the reconciler reads whether an authorization was used on chain. */
  authorizations: AuthorizationReader;
  /** Custody's Uniswap v2 router: the graduation outbox seeds pools through it. */
  dex: DexRouter;
  /** Where the transfer indexer reads launched tokens' Transfer logs. */
  transferLogs: TransferLogReader;
  tunables: Tunables['workers'];
  /** How long a payment is left to its own request before the reconciler takes it. */
  reconcilerGraceMs: number;
  indexer: { confirmations: number; blockRange: number };
  /** Creators' and referrers' unpaid fee shares below this wait for more (USD micro-units). */
  earningsPayoutMinUsd: bigint;
  /**
   * Whether this process signs for custody (and so runs the workers); absent: always. With it,
   * `intentAsked` subscribes to other processes' asks, answered at once between passes.
   */
  custody?: CustodyLease;
  /** When batch-settlement channels are claimed (docs/payments.md "Pay once, call many"); absent: CLAIM_DEFAULTS. */
  channelClaims?: Partial<Omit<ClaimPassOptions, 'networks'>>;
  intentAsked?: (listener: () => void) => () => void;
  /** Test-only seams (a crash right after a record, a step that fails). */
  hooks?: {
    payouts?: Pick<PayoutWorkerDeps, 'afterRecord'>;
    deployments?: { afterRecord?: (d: Deployment) => Promise<void> };
    deliveries?: { afterRecord?: (d: Delivery) => Promise<void> };
    deliveryBatches?: { afterRecord?: (b: DeliveryBatch) => Promise<void>; afterBroadcast?: (b: DeliveryBatch) => Promise<void> };
    graduations?: { afterRecord?: (g: Graduation) => Promise<void> };
    transfers?: Pick<TransferIndexerDeps, 'beforeCommit' | 'afterStep' | 'blockRange'>;
    channelClaims?: ClaimPassOptions['hooks'];
    vesting?: Pick<VestingReleaserDeps, 'beforeCommit' | 'afterRelease'>;
  };
}

/** A worker pass running (or none ending) for longer than this makes a worker process not ready. */
export const WORKER_STALL_MS = 120_000;

export class WorkerScheduler {
  readonly payouts: PayoutWorker;
  readonly deployments: DeploymentWorker;
  readonly deliveries: DeliveryWorker;
  readonly graduations: GraduationWorker;
  /** Books launched tokens' on-chain transfers into positions (docs/decisions/0020). */
  readonly transfers: TransferIndexer;
  readonly reconciler: PaymentReconciler;
  readonly quotePurger: QuotePurger;
  /** Queues the payouts of creators' and referrers' fee shares. */
  readonly earnings: EarningsPayer;
  /** Settles fair launches' raises once they end (docs/api.md "Fair launches"). */
  readonly raises: RaiseSettler;
  /** Executes orders whose price is crossed, woken after each commit (docs/api.md "Orders"). */
  readonly orders: OrderExecutor;
  /** Releases vested dev buys on their schedule, as deliveries (decision 0079). */
  readonly vesting: VestingReleaser;

  private backfilled = false;
  /** When the pass under way started, and when the last one ended (the loop's lease on being alive). */
  private passStartedAt: number | null = null;
  private lastPassEndedAt: number | null = null;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> = Promise.resolve();
  private answering: Promise<void> | null = null;
  private askedAgain = false;
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly deps: WorkerSchedulerDeps) {
    const { application, tunables, dex, hooks = {} } = deps;
    const { uow, clock, logger, ids, tokenIssuer, metrics } = application.deps;
    const outbox = { uow, clock, logger, metrics, ...tunables.outbox };
    this.payouts = new PayoutWorker({ ...outbox, sender: deps.payoutSender, ...hooks.payouts });
    this.reconciler = new PaymentReconciler({
      ...application.deps,
      entrypoints: application.entrypoints,
      chain: deps.authorizations,
      logger,
      metrics,
      graceMs: deps.reconcilerGraceMs,
      refundAfterMs: tunables.refundAfterMs,
    });
    this.deployments = new DeploymentWorker({ ...outbox, issuer: tokenIssuer, ids, ...hooks.deployments });
    this.deliveries = new DeliveryWorker({
      ...outbox,
      issuer: tokenIssuer,
      ids,
      batchMax: tunables.deliveryBatchMax,
      ...hooks.deliveries,
      ...(hooks.deliveryBatches ? { batchHooks: hooks.deliveryBatches } : {}),
    });
    this.graduations = new GraduationWorker({ ...outbox, dex, ids, ...hooks.graduations });
    this.transfers = new TransferIndexer({
      uow,
      clock,
      logger,
      chain: deps.transferLogs,
      networks: ALL_NETWORKS,
      custody: (network) => tokenIssuer.custody(network),
      pairOf: (network, token) => (dex.supports(network) ? dex.pairOf(network, token) : Promise.resolve(null)),
      seeder: (network) => (dex.supports(network) ? dex.seeder(network) : null),
      confirmations: deps.indexer.confirmations,
      blockRange: deps.indexer.blockRange,
      ...hooks.transfers,
    });
    this.quotePurger = new QuotePurger({
      uow,
      clock,
      logger,
      retentionMs: tunables.quoteRetentionMs,
      batch: tunables.purgeBatch,
      intervalMs: tunables.quotePurgeIntervalMs,
    });
    this.earnings = new EarningsPayer({ uow, clock, ids, logger, minPayoutUsd: deps.earningsPayoutMinUsd });
    this.raises = new RaiseSettler({ ...application.deps, logger, metrics });
    this.orders = new OrderExecutor(application.deps);
    this.vesting = new VestingReleaser({ uow, clock, ids, logger, ...hooks.vesting });
  }

  /** One pass of every worker (tests call this instead of waiting for the timer); nothing while custody signs elsewhere. */
  async runOnce(): Promise<void> {
    const { uow, tokenIssuer, ids, clock, logger } = this.deps.application.deps;
    const batch = this.deps.tunables.purgeBatch;
    if (this.deps.custody && !(await this.deps.custody.claim())) return;
    await this.answerIntents();
    if (!this.backfilled) {
      await backfillTokens({ uow, tokenIssuer, ids, clock, logger });
      this.backfilled = true;
    }
    await this.reconciler.runOnce();
    await this.raises.runOnce(); // before the outboxes: a filled raise's deliveries go out in this pass
    await this.orders.runOnce();
    await this.vesting.runOnce(); // before the deliveries: what vested goes out in this pass
    await this.deployments.runOnce();
    await this.deliveries.runOnce();
    await this.graduations.runOnce();
    await this.transfers.runOnce();
    await this.earnings.runOnce(); // before the payouts, so an earnings payout goes out in the same pass
    await this.payouts.runOnce();
    await claimChannels(this.deps.application.deps, { networks: ALL_NETWORKS, ...CLAIM_DEFAULTS, ...this.deps.channelClaims, hooks: this.deps.hooks?.channelClaims });
    await this.quotePurger.runOnce();
    await purgeSpentProofs({ uow, clock }, batch);
    await uow.run((s) => s.accessGrants.purgeExpired(clock.now(), batch));
  }

  /**
   * Answers the custody intents waiting, one round at a time: an ask during a round gets
   * another round after it, so no two rounds sign for one intent at once.
   */
  answerIntents(): Promise<void> {
    if (this.answering) {
      this.askedAgain = true;
      return this.answering;
    }
    const { application } = this.deps;
    this.answering = (async () => {
      do {
        this.askedAgain = false;
        if (this.deps.custody?.signing() ?? true) await answerIntents(application.deps);
      } while (this.askedAgain);
    })()
      .catch((e: unknown) => application.deps.logger.warn('answering custody intents failed; will retry', { error: (e as Error).message }))
      .finally(() => (this.answering = null));
    return this.answering;
  }

  /** Runs a pass every `intervalMs` (the first one `intervalMs` from now) until `stop`. */
  start(): void {
    const { logger } = this.deps.application.deps;
    const { intervalMs } = this.deps.tunables;
    const clock = this.deps.application.deps.clock;
    this.lastPassEndedAt = clock.now().getTime();
    this.unsubscribe = this.deps.intentAsked?.(() => void this.answerIntents()) ?? null;
    this.orders.follow(this.deps.application.deps.uow.changeFeed);
    const tick = () => {
      this.passStartedAt = clock.now().getTime();
      this.running = this.runOnce()
        .catch((e: unknown) => logger.error('worker pass failed', { error: (e as Error).message }))
        .finally(() => {
          this.passStartedAt = null;
          this.lastPassEndedAt = clock.now().getTime();
          if (this.timer) this.timer = setTimeout(tick, intervalMs);
        });
    };
    this.timer = setTimeout(tick, intervalMs);
  }

  /**
   * Whether the loop holds its lease on being alive (GET /readyz, `workers`): `ok` while passes
   * keep ending; `down` when one has run for longer than WORKER_STALL_MS (stuck on something that
   * never answers) or none has ended for that long, and when the loop is not running.
   */
  health(): 'ok' | 'down' {
    if (!this.timer || this.lastPassEndedAt === null) return 'down';
    const now = this.deps.application.deps.clock.now().getTime();
    const since = this.passStartedAt ?? this.lastPassEndedAt;
    return now - since > Math.max(WORKER_STALL_MS, 30 * this.deps.tunables.intervalMs) ? 'down' : 'ok';
  }

  /**
   * No pass starts after this call; the promise settles once the pass under way (if any) has
   * ended, so the caller may close the server in between.
   */
  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.unsubscribe?.();
    this.unsubscribe = null;
    await this.orders.stop();
    await this.running;
    await this.answering;
  }
}
