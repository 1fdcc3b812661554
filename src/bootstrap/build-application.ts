/**
 * The root's application phase: the use cases over the ports, the free budget, the gauges, and
 * the workers beside them (started when this process runs them).
 */
import { UlidIdGenerator } from '../adapters/ids/ulid/ulid-id-generator.js';
import { PromClientMetrics } from '../adapters/metrics/prom-client/prom-client-metrics.js';
import { CurveTradeQuoter } from '../adapters/quotes/curve/curve-trade-quoter.js';
import { UniswapV2TradeQuoter } from '../adapters/quotes/uniswap-v2/uniswap-v2-trade-quoter.js';
import { MemoryRateLimiter } from '../adapters/rate-limit/memory/memory-rate-limiter.js';
import { RedisRateLimiter } from '../adapters/rate-limit/redis/redis-rate-limiter.js';
import { ViemMessageSignatures } from '../adapters/signatures/viem/viem-message-signatures.js';
import { ViemVoucherSignatures } from '../adapters/signatures/viem/viem-voucher-signatures.js';
import { Application } from '../app/application.js';
import { Availability } from '../app/kit/availability.js';
import type { CustodyLease } from '../app/kit/custody-lease.js';
import { collectGauges, METRICS } from '../app/kit/metrics.js';
import { TokenRowCache } from '../app/tokens/token-rows.js';
import { TokenViewCache } from '../app/tokens/token-view-cache.js';
import { ImageIntake } from '../app/tokens/image-intake.js';
import { SharpImageProcessor } from '../adapters/image/sharp/sharp-image-processor.js';
import { WorkerScheduler } from '../app/workers/worker-scheduler.js';
import { ALL_NETWORKS } from '../domain/network.js';
import type { ChainWatch } from './chain-check.js';
import type { RateLimiter } from '../ports/rate-limiter.js';
import type { SignerLocks } from '../ports/signer-locks.js';
import type { UnitOfWork } from '../ports/unit-of-work.js';
import { uniswapOf, type ChainAdapters } from './build-adapters.js';
import type { Closers } from './closers.js';
import type { Config } from './config/config.js';
import type { Host } from './open-host.js';
import { ownAccounts } from './own-accounts.js';
import { buildQuoteRouter } from './quote-router.js';
import type { ServiceOptions, ServicePorts } from './service-options.js';

/** The free budget: none at RATE_LIMIT_FREE_PER_MINUTE=0, shared through Redis with REDIS_URL, else this process's. */
function buildRateLimiter(config: Config): RateLimiter | null {
  if (config.rateLimitPerMinute === 0) return null;
  const budget = { points: config.rateLimitPerMinute, durationSeconds: 60 };
  return config.redisUrl ? new RedisRateLimiter({ url: config.redisUrl, ...budget }) : new MemoryRateLimiter(budget);
}

/** The origin the service's own links name: PUBLIC_URL, else where it listens (as Sign-In-With-X binds proofs). */
function publicOrigin(config: Config, listening: { origin?: string }): () => string {
  return () => config.publicUrl ?? listening.origin ?? `http://${config.host}:${config.port}`;
}

export interface ApplicationParts {
  host: Host;
  uow: UnitOfWork;
  chain: ChainAdapters;
  custody: CustodyLease;
  walletProofs: ServicePorts['walletProofs'];
  /** Where this process listens, once it does: the origin images are named on without PUBLIC_URL. */
  listening: { origin?: string };
  /** Which chain each network's books were kept on (chain-check.ts): the probe rounds compare with it, and agree on one the start could not. */
  chains?: ChainWatch | undefined;
}

export function buildApplication(config: Config, options: ServiceOptions, parts: ApplicationParts, closers: Closers): Application {
  const given = options.ports ?? {};
  const { host, uow, chain } = parts;
  const { clock, logger } = host;
  const availability =
    given.availability ??
    new Availability({ chainProbe: chain.chainProbe, facilitator: chain.facilitator, networks: ALL_NETWORKS, clock, logger, ...parts.chains });
  const metrics = given.metrics ?? new PromClientMetrics(METRICS);
  const priceBoard = given.priceBoard ?? buildQuoteRouter(config, { rpcUrls: host.rpc, devnet: Boolean(host.devnet) }, clock, logger);
  const rateLimiter = given.rateLimiter !== undefined ? given.rateLimiter : buildRateLimiter(config);
  if (rateLimiter) closers.push('rate limiter', () => rateLimiter.close());
  const { afterSettle } = options.hooks ?? {};
  // The caches listen to the store's change feed; the store may outlive this application (tests reuse one).
  const ownViews = given.tokenViews ? null : new TokenViewCache(undefined, uow.changeFeed ?? null);
  const tokenViews = given.tokenViews ?? ownViews!;
  const tokenRows = new TokenRowCache(uow.changeFeed ?? null);
  if (ownViews) closers.push('token view cache', () => ownViews.close());
  closers.push('token row cache', () => tokenRows.close());
  const application = new Application({
    uow,
    clock,
    ids: given.ids ?? new UlidIdGenerator(clock),
    tradeQuoter: given.tradeQuoter ?? new CurveTradeQuoter(),
    poolQuoter: given.poolQuoter ?? new UniswapV2TradeQuoter(chain.dexRouter),
    dex: chain.dexRouter,
    usdQuotes: given.usdQuotes ?? priceBoard,
    priceBoard,
    tokenIssuer: chain.tokenIssuer,
    signatures: given.signatures ?? new ViemMessageSignatures(),
    vouchers: new ViemVoucherSignatures(),
    settings: config.settings,
    ownAccounts: ownAccounts(host, uniswapOf(config, host)),
    tokenViews,
    tokenRows,
    facilitator: chain.facilitator,
    detector: chain.detector,
    logger,
    metrics,
    availability,
    detectionFailClosed: config.detectionFailClosed,
    replayWaitMs: options.timing?.replayWaitMs ?? config.tunables.replayWaitMs,
    walletProofs: parts.walletProofs,
    receiptSigner: chain.receiptSigner,
    accessGrantSeconds: config.infoAccessSeconds,
    rateLimiter,
    custody: parts.custody,
    images: new ImageIntake(given.imageProcessor ?? new SharpImageProcessor(), publicOrigin(config, parts.listening), metrics),
    ...(afterSettle ? { hooks: { afterSettle } } : {}),
  });
  collectGauges({ metrics, uow, clock, availability, priceBoard });
  return application;
}

/** The workers, started (and joined to the readiness checks) when this process runs them; stopped with the service. */
export function startWorkers(
  config: Config,
  options: ServiceOptions,
  parts: { application: Application; chain: ChainAdapters; custody: CustodyLease; locks: SignerLocks },
  closers: Closers,
): WorkerScheduler {
  const { application, chain, custody, locks } = parts;
  const workers = new WorkerScheduler({
    application,
    payoutSender: chain.payoutSender,
    authorizations: chain.authorizations,
    dex: chain.dexRouter,
    transferLogs: chain.transferLogs,
    tunables: { ...config.tunables.workers, intervalMs: options.timing?.workerIntervalMs ?? config.tunables.workers.intervalMs },
    reconcilerGraceMs: config.reconcilerGraceMs,
    indexer: config.indexer,
    earningsPayoutMinUsd: config.settings.earningsPayoutMinUsd,
    // A claim under way as long as the claim wait is taken for one whose sender died (at least 5 s: a block or two).
    channelClaims: { idleMs: config.channelClaimIdleMs, underWayMs: Math.max(config.channelClaimIdleMs, 5_000) },
    custody,
    intentAsked: (listener) => locks.onIntent(listener),
    hooks: options.hooks ?? {},
  });
  closers.push('workers', () => workers.stop());
  if (config.workers) {
    workers.start();
    application.addReadinessCheck('workers', () => workers.health());
  }
  return workers;
}
