/**
 * The composition root: the only module that names adapters. It builds the service from the
 * configuration; tests build it with fakes through the same function.
 */
import type { Server } from 'node:http';
import { SystemClock } from '../adapters/clock/system/system-clock.js';
import { FakeFacilitator } from '../adapters/facilitator/fake/fake-facilitator.js';
import { HttpFacilitator } from '../adapters/facilitator/http/http-facilitator.js';
import { createHttpApp } from '../adapters/http/koa/http-app.js';
import { close, listen } from '../adapters/http/koa/server.js';
import { parseTrustProxy } from '../adapters/http/koa/client-ip.js';
import { rateLimit } from '../adapters/http/koa/rate-limit.js';
import { UlidIdGenerator } from '../adapters/ids/ulid/ulid-id-generator.js';
import { JsonLogger } from '../adapters/logging/console/json-logger.js';
import { FakeNetworkDetector } from '../adapters/network/fake/fake-network-detector.js';
import { MemoryUnitOfWork } from '../adapters/persistence/memory/memory-unit-of-work.js';
import { CurveQuoteProvider } from '../adapters/quotes/curve/curve-quote-provider.js';
import { MemoryRateLimiter } from '../adapters/rate-limit/memory/memory-rate-limiter.js';
import { PRODUCTION } from '../domain/network.js';
import { Application, type ApplicationDeps } from './application.js';
import type { Config } from './config.js';
import { Metrics } from './metrics.js';

/** anvil's well-known accounts #1–#4: wallets with "mainnet" history on the devnet (SPEC §13). */
export const DEVNET_PRODUCTION_WALLETS = [
  '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
  '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65',
];

export function buildApplication(config: Config, overrides: Partial<ApplicationDeps> = {}): Application {
  const clock = overrides.clock ?? new SystemClock();
  const logger = overrides.logger ?? new JsonLogger(config.logLevel);
  const facilitator =
    overrides.facilitator ??
    (config.facilitatorUrl
      ? new HttpFacilitator({ url: config.facilitatorUrl })
      : new FakeFacilitator({ clock, defaultBalance: 10_000_000_000n }));
  const detector =
    overrides.detector ??
    new FakeNetworkDetector(Object.fromEntries(DEVNET_PRODUCTION_WALLETS.map((w) => [w, PRODUCTION])), { clock });
  return new Application({
    uow: overrides.uow ?? new MemoryUnitOfWork(),
    clock,
    ids: overrides.ids ?? new UlidIdGenerator(clock),
    quoteProvider: overrides.quoteProvider ?? new CurveQuoteProvider(),
    settings: overrides.settings ?? config.settings,
    facilitator,
    detector,
    logger,
    metrics: overrides.metrics ?? new Metrics(),
    detectionFailClosed: overrides.detectionFailClosed ?? config.detectionFailClosed,
    replayWaitMs: overrides.replayWaitMs ?? 10_000,
    rateLimiter:
      overrides.rateLimiter ??
      (config.rateLimitPerMinute > 0 ? new MemoryRateLimiter({ points: config.rateLimitPerMinute, durationSeconds: 60 }) : null),
    chainHealth: overrides.chainHealth ?? null,
    ...(overrides.hooks ? { hooks: overrides.hooks } : {}),
  });
}

export interface RunningService {
  application: Application;
  server: Server;
  url: string;
  stop(): Promise<void>;
}

export async function startService(config: Config, overrides: Partial<ApplicationDeps> = {}): Promise<RunningService> {
  const application = buildApplication(config, overrides);
  const limiter = application.deps.rateLimiter;
  const before = limiter
    ? [rateLimit({ limiter, limit: config.rateLimitPerMinute, windowSeconds: 60, trustProxy: parseTrustProxy(config.trustProxy) })]
    : [];
  const server = await listen(createHttpApp(application, { before }), config.port, config.host);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  return {
    application,
    server,
    url: `http://${config.host}:${port}`,
    async stop() {
      await close(server);
      await application.deps.uow.close();
    },
  };
}

