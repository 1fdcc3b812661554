/**
 * The composition root: the only module that names adapters. It builds the service from the
 * configuration — by default the embedded devnet, the in-process x402 facilitator, on-chain
 * payouts and the reconciler — and tests build it with fakes through the same function.
 */
import type { Server } from 'node:http';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { Hex } from 'viem';
import { AnvilDevnet, DevnetPortInUse } from '../adapters/chain/anvil/anvil-devnet.js';
import { AnvilNotInstalled } from '../adapters/chain/anvil/anvil-process.js';
import { devnetAccount, DEVNET_UNISWAP_V2, LAUNCH_FACTORY_ADDRESS } from '../adapters/chain/anvil/devnet-constants.js';
import { ViemDexRouter } from '../adapters/dex/viem/viem-dex-router.js';
import { ViemAuthorizationReader } from '../adapters/chain/viem/viem-authorization-reader.js';
import { SystemClock } from '../adapters/clock/system/system-clock.js';
import { HttpFacilitator } from '../adapters/facilitator/http/http-facilitator.js';
import { LocalFacilitator } from '../adapters/facilitator/local/local-facilitator.js';
import { parseTrustProxy } from '../adapters/http/koa/client-ip.js';
import { createHttpApp } from '../adapters/http/koa/http-app.js';
import { rateLimit } from '../adapters/http/koa/rate-limit.js';
import { close, DEFAULT_TIMEOUTS, listen } from '../adapters/http/koa/server.js';
import { McpEndpoint, MCP_PATH } from '../adapters/mcp/sdk/mcp-endpoint.js';
import { UlidIdGenerator } from '../adapters/ids/ulid/ulid-id-generator.js';
import { PinoLogger } from '../adapters/logging/pino/pino-logger.js';
import { PromClientMetrics } from '../adapters/metrics/prom-client/prom-client-metrics.js';
import { ViemChainProbe } from '../adapters/chain/viem/viem-chain-probe.js';
import { CachingNetworkDetector } from '../adapters/network/caching/caching-network-detector.js';
import { ViemNetworkDetector } from '../adapters/network/viem/viem-network-detector.js';
import { ViemPayoutSender } from '../adapters/payout/viem/viem-payout-sender.js';
import { DataDirInUse, DataDirLock } from './data-dir-lock.js';
import { listenProblem, PortInUse } from '../adapters/http/koa/port-in-use.js';
import { newNonceQueue } from '../adapters/kit/evm/signed-transactions.js';
import { MikroOrmUnitOfWork } from '../adapters/persistence/mikro-orm/mikro-orm-unit-of-work.js';
import { CurveTradeQuoter } from '../adapters/quotes/curve/curve-trade-quoter.js';
import { UniswapV2TradeQuoter } from '../adapters/quotes/uniswap-v2/uniswap-v2-trade-quoter.js';
import { MemoryRateLimiter } from '../adapters/rate-limit/memory/memory-rate-limiter.js';
import { RedisRateLimiter } from '../adapters/rate-limit/redis/redis-rate-limiter.js';
import { ALL_NETWORKS, PRODUCTION, TESTNET, type Network } from '../domain/network.js';
import type { AuthorizationReader } from '../ports/authorization-reader.js';
import type { DexRouter } from '../ports/dex-router.js';
import type { Logger } from '../ports/logger.js';
import type { PayoutSender } from '../ports/payout-sender.js';
import { Application, type ApplicationDeps } from '../app/application.js';
import type { Config } from '../app/config.js';
import { Availability } from '../app/availability.js';
import { collectGauges, METRICS } from '../app/metrics.js';
import type { ChainProbe } from '../ports/chain-probe.js';
import { TokenViewCache } from '../app/token-view-cache.js';
import { WorkerScheduler, type WorkerSchedulerDeps } from '../app/workers/worker-scheduler.js';
import { ViemTransferLogReader } from '../adapters/chain/viem/viem-transfer-log-reader.js';
import type { TransferLogReader } from '../ports/transfer-log-reader.js';
import type { TokenIssuer } from '../ports/token-issuer.js';
import type { UnitOfWork } from '../ports/unit-of-work.js';
import { ViemTokenIssuer } from '../adapters/token/viem/viem-token-issuer.js';
import { ViemReceiptSigner } from '../adapters/receipts/viem/viem-receipt-signer.js';
import { SiwxWalletProofVerifier } from '../adapters/wallet-proof/siwx/siwx-wallet-proof-verifier.js';
import { loadPageFiles } from '../adapters/web/esbuild/page-files.js';
import { pageRoute } from '../adapters/web/esbuild/page-route.js';
import { buildQuoteRouter } from './quote-router.js';
import { checkSharedSettings, lockSettlementKey } from './scale-out.js';
import { MemorySignerLocks } from '../adapters/persistence/memory/memory-signer-locks.js';
import { CustodyLease } from '../app/custody/custody-lease.js';
import type { SignerLocks } from '../ports/signer-locks.js';
import { StartupError } from './startup-error.js';

type WorkerHooks = NonNullable<WorkerSchedulerDeps['hooks']>;

export interface ServiceOverrides extends Partial<ApplicationDeps> {
  payoutSender?: PayoutSender;
  authorizations?: AuthorizationReader;
  payoutHooks?: WorkerHooks['payouts'];
  deploymentHooks?: WorkerHooks['deployments'];
  deliveryHooks?: WorkerHooks['deliveries'];
  deliveryBatchHooks?: WorkerHooks['deliveryBatches'];
  /** Wraps the token issuer the service builds (fault-injection tests: an RPC that goes down). */
  wrapTokenIssuer?: (issuer: TokenIssuer) => TokenIssuer;
  /** Uniswap v2 (docs/operations.md, "Graduation pools"); default: the devnet's, or UNISWAP_V2_* on real networks. */
  dexRouter?: DexRouter;
  graduationHooks?: WorkerHooks['graduations'];
  /** Where the transfer indexer reads launched tokens' Transfer logs; default: the chain's RPCs. */
  transferLogs?: TransferLogReader;
  transferIndexerHooks?: WorkerHooks['transfers'];
  /** Worker cadence (default: the configuration's; tests run them by hand with `runWorkers`). */
  workerIntervalMs?: number;
  /** What tells whether each network's chain answers (default: its RPC; null: nothing to probe, every network answers). */
  chainProbe?: ChainProbe | null;
  /** One signer per key (default: the store's — PostgreSQL advisory locks — or this process alone). */
  signerLocks?: SignerLocks;
}

/** The service listening, with its workers (each can be run by hand). */
export interface RunningService extends Pick<WorkerScheduler, 'payouts' | 'deployments' | 'deliveries' | 'graduations' | 'transfers' | 'reconciler' | 'quotePurger'> {
  application: Application;
  server: Server;
  url: string;
  devnet: AnvilDevnet | null;
  /** One pass of every worker (tests call this instead of waiting for the timers). */
  runWorkers(): Promise<void>;
  /** Builds the page for people now rather than on its first visit (docs/decisions/0030). */
  warmPage(): Promise<void>;
  stop(): Promise<void>;
}

interface Chain {
  rpcUrls: Record<Network, string>;
  devnet: AnvilDevnet | null;
}

async function openChain(config: Config, logger: Logger): Promise<Chain> {
  if (config.chain === 'rpc') {
    // Several URLs per network are comma-separated; the first is used for writes.
    return { rpcUrls: { [PRODUCTION]: config.rpcUrls[PRODUCTION]![0]!, [TESTNET]: config.rpcUrls[TESTNET]![0]! }, devnet: null };
  }
  let devnet: AnvilDevnet;
  try {
    devnet = await AnvilDevnet.start({
      port: config.devnetPort,
      stateDir: join(config.dataDir, 'devnet'),
      idleBlockMs: config.devnetIdleBlockMs,
      logger,
      // startService holds DATA_DIR's lock whenever the devnet runs.
      stateDirLocked: true,
    });
  } catch (e) {
    // One line for the operator: attaching to another instance's devnet would share its treasury.
    if (e instanceof AnvilNotInstalled || e instanceof DevnetPortInUse) throw new StartupError(e.message);
    throw e;
  }
  return { rpcUrls: { [PRODUCTION]: devnet.chains[PRODUCTION].rpcUrl, [TESTNET]: devnet.chains[TESTNET].rpcUrl }, devnet };
}

function buildRateLimiter(config: Config) {
  if (config.rateLimitPerMinute === 0) return null;
  const budget = { points: config.rateLimitPerMinute, durationSeconds: 60 };
  return config.redisUrl ? new RedisRateLimiter({ url: config.redisUrl, ...budget }) : new MemoryRateLimiter(budget);
}

const devnetKey = (): Hex => `0x${Buffer.from(devnetAccount(0).getHdKey().privateKey!).toString('hex')}`;

const portInUse = (config: Config) => new StartupError(`PORT ${config.port} is in use (another instance?) — set PORT`);

/** The one line for an address the HTTP server cannot listen on, naming the setting to change. */
function listenRefusal(config: Config, code: string): StartupError {
  if (code === 'EADDRINUSE') return portInUse(config);
  if (code === 'EACCES') return new StartupError(`PORT ${config.port} needs privileges to listen on (EACCES) — set PORT above 1023`);
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EINVAL') {
    return new StartupError(`HOST ${config.host} is not an address of this machine (${code}) — set HOST`);
  }
  return new StartupError(`cannot listen on HOST ${config.host}, PORT ${config.port} (${code}) — set HOST or PORT`);
}

/**
 * Whether this service keeps anything in DATA_DIR: the devnet's state, or the SQLite file when
 * it lies there (PostgreSQL with the devnet still keeps the chains there).
 */
function usesDataDir(config: Config, devnet: boolean, ownDatabase: boolean): boolean {
  if (devnet) return true;
  if (!ownDatabase || !config.databaseUrl.startsWith('sqlite:')) return false;
  const file = config.databaseUrl.slice('sqlite:'.length);
  if (file === '' || file === ':memory:') return false;
  const inside = relative(resolve(config.dataDir), resolve(file));
  return inside !== '' && !inside.startsWith('..') && !isAbsolute(inside);
}

/**
 * The one line for a database that cannot be opened: where (host and port, never the URL's
 * credentials) and why, naming DATABASE_URL; anything else is not the operator's to fix.
 */
function databaseUnreachable(config: Config, e: unknown): unknown {
  const err = e as NodeJS.ErrnoException & { address?: string; port?: number };
  if (!err || typeof err.code !== 'string' || !/^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|ECONNRESET|SQLITE_CANTOPEN|28P01|28000|3D000)$/.test(err.code)) return e;
  let where = config.databaseUrl;
  try {
    if (!where.startsWith('sqlite:')) where = new URL(where).host;
  } catch {
    where = 'the configured database';
  }
  const fix = err.code.startsWith('28') ? "authentication failed) — fix DATABASE_URL's user or password" : err.code === '3D000' ? 'no such database) — set DATABASE_URL' : `${err.code}) — start it, or set DATABASE_URL`;
  return new StartupError(`DATABASE_URL: cannot open the database at ${where} (${fix}`);
}

/** DATA_DIR's lock, or the one line that says another instance holds it. */
async function lockDataDir(config: Config): Promise<DataDirLock> {
  try {
    return await DataDirLock.acquire(config.dataDir);
  } catch (e) {
    if (!(e instanceof DataDirInUse)) throw e;
    const who = e.holderPid ? `another instance, pid ${e.holderPid}` : 'another instance?';
    throw new StartupError(`DATA_DIR ${config.dataDir} is in use (${who}) — set DATA_DIR`);
  }
}

export async function startService(config: Config, overrides: ServiceOverrides = {}): Promise<RunningService> {
  // Checked before the devnet starts, so a second instance says what it lacks first and fast.
  const problem = await listenProblem(config.port, config.host);
  if (problem) throw listenRefusal(config, problem);
  const clock = overrides.clock ?? new SystemClock();
  const ownLogger = overrides.logger ? null : new PinoLogger({ level: config.logLevel, format: config.logFormat });
  const logger = overrides.logger ?? ownLogger!;
  // A test that brings its own facilitator brings its own chain too.
  const needsChain = !overrides.facilitator || !overrides.payoutSender || !overrides.authorizations || !overrides.tokenIssuer;
  // Before anything touches DATA_DIR: a second instance there would share (and stop) the first's chains.
  const lock = usesDataDir(config, needsChain && config.chain === 'devnet', !overrides.uow) ? await lockDataDir(config) : null;
  let chain: Chain | null;
  try {
    chain = needsChain ? await openChain(config, logger) : null;
  } catch (e) {
    await lock?.release();
    throw e;
  }
  const treasuryKey = config.treasuryKey ?? devnetKey();
  const rpc = chain?.rpcUrls;

  // One nonce queue per signing key in this process: settlements and payouts on one key never collide.
  const settlementKey = config.settlementKey ?? treasuryKey;
  const treasuryNonces = newNonceQueue();
  const settlementNonces = settlementKey.toLowerCase() === treasuryKey.toLowerCase() ? treasuryNonces : newNonceQueue();
  const facilitator =
    overrides.facilitator ??
    (config.facilitatorUrl
      ? new HttpFacilitator({ url: config.facilitatorUrl })
      : new LocalFacilitator({ settlementKey, rpcUrls: rpc!, nonces: settlementNonces, log: (message, fields) => logger.warn(message, fields) }));
  const detector =
    overrides.detector ??
    new CachingNetworkDetector(
      new ViemNetworkDetector({ mainnetRpcUrls: config.rpcUrls[PRODUCTION] ?? [rpc![PRODUCTION]], clock }),
      { clock },
    );
  let uow: UnitOfWork;
  try {
    uow = overrides.uow ?? (await MikroOrmUnitOfWork.open({ url: config.databaseUrl }));
  } catch (e) {
    await chain?.devnet?.stop();
    await lock?.release();
    throw databaseUnreachable(config, e);
  }
  // Custody of launched tokens is the treasury key: its transactions share the treasury's nonces.
  const launchFactories = chain?.devnet
    ? { [PRODUCTION]: LAUNCH_FACTORY_ADDRESS, [TESTNET]: LAUNCH_FACTORY_ADDRESS }
    : { [PRODUCTION]: config.launchFactories[PRODUCTION], [TESTNET]: config.launchFactories[TESTNET] };
  const builtIssuer =
    overrides.tokenIssuer ?? new ViemTokenIssuer({ custodyKey: treasuryKey, rpcUrls: rpc!, factories: launchFactories, nonces: treasuryNonces });
  const tokenIssuer = overrides.wrapTokenIssuer ? overrides.wrapTokenIssuer(builtIssuer) : builtIssuer;
  // Scale-out (docs/operations.md): one signer per key, and the settings every process shares.
  const locks = overrides.signerLocks ?? uow.signerLocks ?? new MemorySignerLocks();
  let stopSettlementWatch = () => {};
  try {
    if (!overrides.facilitator && !config.facilitatorUrl) {
      const sharedStore = Boolean(overrides.signerLocks ?? uow.signerLocks);
      stopSettlementWatch = await lockSettlementKey(locks, config, settlementKey, { custody: tokenIssuer.custody(PRODUCTION), sharedStore, logger });
    }
    await checkSharedSettings(config, { uow, clock, logger, tokenIssuer, settings: overrides.settings ?? config.settings }, { devnet: Boolean(chain?.devnet), rpcUrls: rpc });
  } catch (e) {
    stopSettlementWatch();
    if (!overrides.uow) await uow.close();
    await chain?.devnet?.stop();
    await lock?.release();
    throw e;
  }
  const custody = new CustodyLease({
    locks,
    custody: tokenIssuer.custody(PRODUCTION),
    logger,
    // Custody back after losing it: another process signed meanwhile, so the queue asks the chain.
    onGained: () => ALL_NETWORKS.forEach((n) => tokenIssuer.release(n)),
  });
  // Sign-In-With-X proofs are bound to the public origin; without PUBLIC_URL, to where this
  // process listens (known once it does: the port may be ephemeral).
  const listening: { origin?: string } = {};
  const walletProofs =
    overrides.walletProofs ??
    new SiwxWalletProofVerifier({ origin: () => config.publicUrl ?? listening.origin ?? `http://${config.host}:${config.port}`, networks: ALL_NETWORKS });
  // Offers and receipts are signed with the treasury's key: the address payments go to by default.
  const receiptSigner = overrides.receiptSigner !== undefined ? overrides.receiptSigner : new ViemReceiptSigner({ key: treasuryKey });
  const dexRouter =
    overrides.dexRouter ??
    new ViemDexRouter({
      custodyKey: treasuryKey,
      rpcUrls: rpc ?? {},
      uniswap: chain?.devnet
        ? { [PRODUCTION]: DEVNET_UNISWAP_V2, [TESTNET]: DEVNET_UNISWAP_V2 }
        : { ...(config.uniswapV2[PRODUCTION] ? { [PRODUCTION]: config.uniswapV2[PRODUCTION] } : {}), ...(config.uniswapV2[TESTNET] ? { [TESTNET]: config.uniswapV2[TESTNET] } : {}) },
      // The LaunchFactory seeds graduation pools too (decision 0023).
      seeders: launchFactories,
      nonces: treasuryNonces,
    });
  const chainProbe = overrides.chainProbe !== undefined ? overrides.chainProbe : rpc ? new ViemChainProbe({ rpcUrls: rpc }) : null;
  const availability = overrides.availability ?? new Availability({ chainProbe, facilitator, networks: ALL_NETWORKS, clock });
  const metrics = overrides.metrics ?? new PromClientMetrics(METRICS);
  const priceBoard = overrides.priceBoard ?? buildQuoteRouter(config, { rpcUrls: rpc ?? null, devnet: Boolean(chain?.devnet) }, clock, logger);
  const application = new Application({
    uow,
    clock,
    ids: overrides.ids ?? new UlidIdGenerator(clock),
    tradeQuoter: overrides.tradeQuoter ?? new CurveTradeQuoter(),
    poolQuoter: overrides.poolQuoter ?? new UniswapV2TradeQuoter(dexRouter),
    dex: dexRouter,
    usdQuotes: overrides.usdQuotes ?? priceBoard,
    priceBoard,
    tokenIssuer,
    settings: overrides.settings ?? config.settings,
    tokenViews: overrides.tokenViews ?? new TokenViewCache(undefined, uow.changeFeed ?? null),
    facilitator,
    detector,
    logger,
    metrics,
    availability,
    detectionFailClosed: overrides.detectionFailClosed ?? config.detectionFailClosed,
    replayWaitMs: overrides.replayWaitMs ?? config.tunables.replayWaitMs,
    walletProofs,
    receiptSigner,
    accessGrantSeconds: overrides.accessGrantSeconds ?? config.infoAccessSeconds,
    rateLimiter: overrides.rateLimiter ?? buildRateLimiter(config),
    custody,
    ...(overrides.hooks ? { hooks: overrides.hooks } : {}),
  });
  const deps = application.deps;
  collectGauges({ metrics, uow, clock, availability, priceBoard });

  const workers = new WorkerScheduler({
    application,
    payoutSender: overrides.payoutSender ?? new ViemPayoutSender({ treasuryKey, rpcUrls: rpc!, nonces: treasuryNonces }),
    authorizations: overrides.authorizations ?? new ViemAuthorizationReader({ rpcUrls: rpc! }),
    dex: dexRouter,
    transferLogs: overrides.transferLogs ?? new ViemTransferLogReader({ rpcUrls: rpc ?? {} }),
    tunables: { ...config.tunables.workers, intervalMs: overrides.workerIntervalMs ?? config.tunables.workers.intervalMs },
    reconcilerGraceMs: config.reconcilerGraceMs,
    indexer: config.indexer,
    earningsPayoutMinUsd: config.settings.earningsPayoutMinUsd,
    custody,
    intentAsked: (listener) => locks.onIntent(listener),
    hooks: {
      payouts: overrides.payoutHooks,
      deployments: overrides.deploymentHooks,
      deliveries: overrides.deliveryHooks,
      deliveryBatches: overrides.deliveryBatchHooks,
      graduations: overrides.graduationHooks,
      transfers: overrides.transferIndexerHooks,
    },
  });
  if (config.workers) {
    workers.start();
    application.addReadinessCheck('workers', () => workers.health());
  }

  const limiter = deps.rateLimiter;
  const trustProxy = parseTrustProxy(config.trustProxy);
  const budget = limiter ? { limiter, limit: config.rateLimitPerMinute, windowSeconds: 60 } : null;
  // The MCP endpoint keeps the free budget itself: whether a call is paid is in its body.
  const before = budget ? [rateLimit({ ...budget, trustProxy, selfLimitedPaths: [MCP_PATH] })] : [];
  const mcp = new McpEndpoint(application, budget);
  const shutdown = new AbortController();
  const page = pageRoute(loadPageFiles, logger, { chain: config.chain });
  let server: Server;
  try {
    const app = createHttpApp(application, {
      before,
      shutdown: shutdown.signal,
      trustProxy,
      eventStream: { maxTotal: config.maxEventStreams, maxPerClient: config.maxEventStreamsPerClient },
      publicUrl: config.publicUrl,
      mcp,
      cors: { origins: config.corsOrigins, publicUrl: config.publicUrl },
      page,
    });
    server = await listen(app, config.port, config.host, DEFAULT_TIMEOUTS, () => deps.ids.next('req'));
  } catch (e) {
    await workers.stop();
    stopSettlementWatch();
    await uow.close();
    await chain?.devnet?.stop();
    await lock?.release();
    throw e instanceof PortInUse ? portInUse(config) : e;
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  listening.origin = `http://${config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host}:${port}`;
  return {
    application,
    server,
    url: `http://${config.host}:${port}`,
    devnet: chain?.devnet ?? null,
    payouts: workers.payouts,
    deployments: workers.deployments,
    deliveries: workers.deliveries,
    graduations: workers.graduations,
    transfers: workers.transfers,
    reconciler: workers.reconciler,
    quotePurger: workers.quotePurger,
    runWorkers: () => workers.runOnce(),
    warmPage: () => page.warm(),
    async stop() {
      const passEnded = workers.stop();
      shutdown.abort();
      await close(server);
      await passEnded;
      stopSettlementWatch();
      await deps.uow.close();
      if (deps.rateLimiter instanceof RedisRateLimiter) await deps.rateLimiter.close();
      await chain?.devnet?.stop();
      await lock?.release();
      await ownLogger?.flush();
    },
  };
}
