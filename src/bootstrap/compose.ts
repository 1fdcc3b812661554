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
import { UlidIdGenerator } from '../adapters/ids/ulid/ulid-id-generator.js';
import { JsonLogger } from '../adapters/logging/console/json-logger.js';
import { CachingNetworkDetector } from '../adapters/network/caching/caching-network-detector.js';
import { ViemNetworkDetector } from '../adapters/network/viem/viem-network-detector.js';
import { ViemPayoutSender } from '../adapters/payout/viem/viem-payout-sender.js';
import { DataDirInUse, DataDirLock } from './data-dir-lock.js';
import { PortInUse, portIsFree } from '../adapters/http/koa/port-in-use.js';
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
import { Metrics } from '../app/metrics.js';
import { TokenViewCache } from '../app/token-view-cache.js';
import { WorkerScheduler, type WorkerSchedulerDeps } from '../app/workers/worker-scheduler.js';
import { ViemTransferLogReader } from '../adapters/chain/viem/viem-transfer-log-reader.js';
import type { TransferLogReader } from '../ports/transfer-log-reader.js';
import type { TokenIssuer } from '../ports/token-issuer.js';
import { ViemTokenIssuer } from '../adapters/token/viem/viem-token-issuer.js';
import { ViemReceiptSigner } from '../adapters/receipts/viem/viem-receipt-signer.js';
import { SiwxWalletProofVerifier } from '../adapters/wallet-proof/siwx/siwx-wallet-proof-verifier.js';
import { buildQuoteRouter } from './quote-router.js';
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
}

/** The service listening, with its workers (each can be run by hand). */
export interface RunningService extends Pick<WorkerScheduler, 'payouts' | 'deployments' | 'deliveries' | 'graduations' | 'transfers' | 'reconciler' | 'quotePurger'> {
  application: Application;
  server: Server;
  url: string;
  devnet: AnvilDevnet | null;
  /** One pass of every worker (tests call this instead of waiting for the timers). */
  runWorkers(): Promise<void>;
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
  if (!(await portIsFree(config.port, config.host))) throw portInUse(config);
  const clock = overrides.clock ?? new SystemClock();
  const logger = overrides.logger ?? new JsonLogger(config.logLevel);
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
      : new LocalFacilitator({ settlementKey, rpcUrls: rpc!, nonces: settlementNonces }));
  const detector =
    overrides.detector ??
    new CachingNetworkDetector(
      new ViemNetworkDetector({ mainnetRpcUrls: config.rpcUrls[PRODUCTION] ?? [rpc![PRODUCTION]], clock }),
      { clock },
    );
  const uow = overrides.uow ?? (await MikroOrmUnitOfWork.open({ url: config.databaseUrl }));
  // Custody of launched tokens is the treasury key: its transactions share the treasury's nonces.
  const launchFactories = chain?.devnet
    ? { [PRODUCTION]: LAUNCH_FACTORY_ADDRESS, [TESTNET]: LAUNCH_FACTORY_ADDRESS }
    : { [PRODUCTION]: config.launchFactories[PRODUCTION], [TESTNET]: config.launchFactories[TESTNET] };
  const builtIssuer =
    overrides.tokenIssuer ?? new ViemTokenIssuer({ custodyKey: treasuryKey, rpcUrls: rpc!, factories: launchFactories, nonces: treasuryNonces });
  const tokenIssuer = overrides.wrapTokenIssuer ? overrides.wrapTokenIssuer(builtIssuer) : builtIssuer;
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
    metrics: overrides.metrics ?? new Metrics(),
    detectionFailClosed: overrides.detectionFailClosed ?? config.detectionFailClosed,
    replayWaitMs: overrides.replayWaitMs ?? config.tunables.replayWaitMs,
    walletProofs,
    receiptSigner,
    accessGrantSeconds: overrides.accessGrantSeconds ?? config.infoAccessSeconds,
    rateLimiter: overrides.rateLimiter ?? buildRateLimiter(config),
    chainHealth:
      overrides.chainHealth ??
      (chain?.devnet
        ? async () => ((await chain.devnet!.publicClient(PRODUCTION).getChainId()) ? 'ok' : 'down')
        : null),
    ...(overrides.hooks ? { hooks: overrides.hooks } : {}),
  });
  const deps = application.deps;

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
    hooks: {
      payouts: overrides.payoutHooks,
      deployments: overrides.deploymentHooks,
      deliveries: overrides.deliveryHooks,
      deliveryBatches: overrides.deliveryBatchHooks,
      graduations: overrides.graduationHooks,
      transfers: overrides.transferIndexerHooks,
    },
  });
  if (config.workers) workers.start();

  const limiter = deps.rateLimiter;
  const trustProxy = parseTrustProxy(config.trustProxy);
  const before = limiter ? [rateLimit({ limiter, limit: config.rateLimitPerMinute, windowSeconds: 60, trustProxy })] : [];
  const shutdown = new AbortController();
  let server: Server;
  try {
    const app = createHttpApp(application, {
      before,
      shutdown: shutdown.signal,
      trustProxy,
      eventStream: { maxTotal: config.maxEventStreams, maxPerClient: config.maxEventStreamsPerClient },
      publicUrl: config.publicUrl,
    });
    server = await listen(app, config.port, config.host, DEFAULT_TIMEOUTS, () => deps.ids.next('req'));
  } catch (e) {
    await workers.stop();
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
    async stop() {
      const passEnded = workers.stop();
      shutdown.abort();
      await close(server);
      await passEnded;
      await deps.uow.close();
      if (deps.rateLimiter instanceof RedisRateLimiter) await deps.rateLimiter.close();
      await chain?.devnet?.stop();
      await lock?.release();
    },
  };
}
