/**
 * The composition root: the only module that names adapters. It builds the service from the
 * configuration — by default the embedded devnet, the in-process x402 facilitator, on-chain
 * payouts and the reconciler — and tests build it with fakes through the same function, giving
 * ports in `ServiceOptions`. It runs in phases (host, store, chain adapters, scale-out,
 * application, workers, HTTP); each resource joins one stack of closers when it is made, and a
 * failed start and `stop()` unwind that same stack (docs/decisions/0044).
 */
import type { Server } from 'node:http';
import type { AnvilDevnet } from '../adapters/chain/anvil/anvil-devnet.js';
import { listenProblem } from '../adapters/http/koa/port-in-use.js';
import type { Application } from '../app/application.js';
import type { WorkerScheduler } from '../app/workers/worker-scheduler.js';
import { buildApplication, startWorkers } from './build-application.js';
import { buildChainAdapters, buildWalletProofs, openStore } from './build-adapters.js';
import { checkChains } from './chain-check.js';
import { Closers } from './closers.js';
import type { Config } from './config/config.js';
import { openHost } from './open-host.js';
import { joinScaleOut } from './scale-out.js';
import { serveHttp } from './serve-http.js';
import type { ServiceOptions } from './service-options.js';
import { listenRefusal } from './start-refusals.js';

export type { ServiceHooks, ServiceOptions, ServicePorts } from './service-options.js';

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
  /** Closes everything the service opened, the last opened first. */
  stop(): Promise<void>;
}

export async function startService(config: Config, options: ServiceOptions = {}): Promise<RunningService> {
  // Checked before the devnet starts, so a second instance says what it lacks first and fast.
  const problem = await listenProblem(config.port, config.host);
  if (problem) throw listenRefusal(config, problem);
  const closers = new Closers();
  try {
    const host = await openHost(config, options, closers);
    const uow = await openStore(config, options, closers);
    const chain = buildChainAdapters(config, options, host);
    const { locks, custody } = await joinScaleOut(config, options, { host, uow, chain }, closers);
    const chains = await checkChains(config, { host, uow, chain });
    const listening: { origin?: string } = {};
    const walletProofs = buildWalletProofs(config, options, listening);
    const application = buildApplication(config, options, { host, uow, chain, custody, walletProofs, listening, chains }, closers);
    const workers = startWorkers(config, options, { application, chain, custody, locks }, closers);
    const { server, url, page } = await serveHttp(config, application, closers, listening);
    return {
      application,
      server,
      url,
      devnet: host.devnet,
      ...pick(workers, ['payouts', 'deployments', 'deliveries', 'graduations', 'transfers', 'reconciler', 'quotePurger']),
      runWorkers: () => workers.runOnce(),
      warmPage: () => page.warm(),
      stop: () => closers.close(),
    };
  } catch (e) {
    // The start's own error is the one to report; what failed to close after it is secondary.
    await closers.close().catch(() => undefined);
    throw e;
  }
}

function pick<T, K extends keyof T>(from: T, keys: readonly K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((k) => [k, from[k]])) as Pick<T, K>;
}
