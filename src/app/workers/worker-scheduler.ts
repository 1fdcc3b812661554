/**
 * The workers that run beside the HTTP server (docs/architecture.md, "Workers") and the timer that
 * runs them. A pass runs every worker once, in a fixed order: tokens from before tokens went on
 * chain are taken on chain first (once per process, before the outboxes), then the reconciler,
 * the outboxes (deployments, deliveries, graduations), the transfer indexer, the earnings payer,
 * payouts and the purges. Started, it runs a pass `intervalMs` after the previous one ended —
 * never two at once — and a failed pass is logged and the next one runs as usual.
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
import type { Tunables } from '../config.js';
import { purgeSpentProofs } from '../extensions/wallet-proof.js';
import { PaymentReconciler } from './payment-reconciler.js';
import { EarningsPayer } from './earnings-payer.js';
import { PayoutWorker, type PayoutWorkerDeps } from './payout-worker.js';
import { QuotePurger } from './quote-purger.js';
import { backfillTokens } from './token-backfill.js';
import { DeliveryWorker, DeploymentWorker } from './token-workers.js';
import { GraduationWorker } from './graduation-worker.js';
import { TransferIndexer, type TransferIndexerDeps } from './transfer-indexer.js';

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
  /** Test-only seams (a crash right after a record, a step that fails). */
  hooks?: {
    payouts?: Pick<PayoutWorkerDeps, 'afterRecord'>;
    deployments?: { afterRecord?: (d: Deployment) => Promise<void> };
    deliveries?: { afterRecord?: (d: Delivery) => Promise<void> };
    deliveryBatches?: { afterRecord?: (b: DeliveryBatch) => Promise<void>; afterBroadcast?: (b: DeliveryBatch) => Promise<void> };
    graduations?: { afterRecord?: (g: Graduation) => Promise<void> };
    transfers?: Pick<TransferIndexerDeps, 'beforeCommit' | 'afterStep' | 'blockRange'>;
  };
}

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

  private backfilled = false;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> = Promise.resolve();

  constructor(private readonly deps: WorkerSchedulerDeps) {
    const { application, tunables, dex, hooks = {} } = deps;
    const { uow, clock, logger, ids, tokenIssuer, metrics } = application.deps;
    const outbox = { uow, clock, logger, ...tunables.outbox };
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
    this.deployments = new DeploymentWorker({ ...outbox, issuer: tokenIssuer, ...hooks.deployments });
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
  }

  /** One pass of every worker (tests call this instead of waiting for the timer). */
  async runOnce(): Promise<void> {
    const { uow, tokenIssuer, ids, clock, logger } = this.deps.application.deps;
    const batch = this.deps.tunables.purgeBatch;
    if (!this.backfilled) {
      await backfillTokens({ uow, tokenIssuer, ids, clock, logger });
      this.backfilled = true;
    }
    await this.reconciler.runOnce();
    await this.deployments.runOnce();
    await this.deliveries.runOnce();
    await this.graduations.runOnce();
    await this.transfers.runOnce();
    await this.earnings.runOnce(); // before the payouts, so an earnings payout goes out in the same pass
    await this.payouts.runOnce();
    await this.quotePurger.runOnce();
    await purgeSpentProofs({ uow, clock }, batch);
    await uow.run((s) => s.accessGrants.purgeExpired(clock.now(), batch));
  }

  /** Runs a pass every `intervalMs` (the first one `intervalMs` from now) until `stop`. */
  start(): void {
    const { logger } = this.deps.application.deps;
    const { intervalMs } = this.deps.tunables;
    const tick = () => {
      this.running = this.runOnce()
        .catch((e: unknown) => logger.error('worker pass failed', { error: (e as Error).message }))
        .finally(() => {
          if (this.timer) this.timer = setTimeout(tick, intervalMs);
        });
    };
    this.timer = setTimeout(tick, intervalMs);
  }

  /**
   * No pass starts after this call; the promise settles once the pass under way (if any) has
   * ended, so the caller may close the server in between.
   */
  stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    return this.running;
  }
}
