/** A real listening service over in-memory stores and the signature-checking fake facilitator. */
import { FakeFacilitator } from '../../src/adapters/facilitator/fake/fake-facilitator.js';
import { FakeNetworkDetector } from '../../src/adapters/network/fake/fake-network-detector.js';
import { MemoryUnitOfWork } from '../../src/adapters/persistence/memory/memory-unit-of-work.js';
import { FakePayoutSender } from '../../src/adapters/payout/fake/fake-payout-sender.js';
import { FakeTokenIssuer } from '../../src/adapters/token/fake/fake-token-issuer.js';
import { startService, type RunningService, type ServiceOptions } from '../../src/bootstrap/compose.js';
import { PRODUCTION } from '../../src/domain/network.js';
import { loadConfig } from '../../src/bootstrap/config/config.js';
import type { Clock } from '../../src/ports/clock.js';

/** Real time plus an offset tests can move (x402 signatures are checked against real time). */
export class ShiftableClock implements Clock {
  offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
}

/** anvil's accounts #1–#4: the wallets with "mainnet" history (docs/operations.md). */
export const PRODUCTION_WALLETS = [
  '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
  '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65',
];

/** The service over fakes: in-memory stores, the signature-checking facilitator, no chain; `options.ports` replaces any of them. */
export async function startTestService(options: ServiceOptions = {}, env: Record<string, string> = {}): Promise<RunningService> {
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', RATE_LIMIT_FREE_PER_MINUTE: '0', WORKERS: 'false', LAUNCH_FEE_DECAY_SECONDS: '0', ...env });
  const given = options.ports ?? {};
  const clock = given.clock ?? new ShiftableClock();
  const facilitator = given.facilitator ?? new FakeFacilitator({ clock, defaultBalance: 10_000_000_000n });
  return startService(config, {
    ...options,
    timing: { replayWaitMs: 5_000, ...options.timing },
    ports: {
      clock,
      uow: new MemoryUnitOfWork(),
      detector: new FakeNetworkDetector(Object.fromEntries(PRODUCTION_WALLETS.map((w) => [w, PRODUCTION])), { clock }),
      payoutSender: new FakePayoutSender(),
      tokenIssuer: new FakeTokenIssuer({ clock }),
      authorizations: facilitator instanceof FakeFacilitator ? facilitator : new FakeFacilitator({ clock }),
      ...given,
      facilitator,
    },
  });
}

export async function json(res: Response): Promise<any> {
  return res.json();
}

/**
 * Runs the workers until the outboxes rest, moving a ShiftableClock past each wait (the
 * confirmation poll): tokens deployed, buys delivered, payouts confirmed.
 */
export async function settle(service: RunningService, passes = 4): Promise<void> {
  const clock = service.application.deps.clock;
  for (let i = 0; i < passes; i++) {
    if (clock instanceof ShiftableClock) clock.offsetMs += 2_000;
    await service.runWorkers();
  }
}

/**
 * What devnet tests start the service with: an ephemeral port, silent, no free-request limit,
 * workers run by hand (`runWorkers`), the plain curve from the first second, `dataDir` and a
 * devnet on free ports; `env` adds or overrides.
 */
export async function devnetConfig(dataDir: string, env: Record<string, string> = {}) {
  const { freePorts } = await import('./free-ports.js');
  return loadConfig({
    LAUNCH_FEE_DECAY_SECONDS: '0',
    PORT: '0',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_FREE_PER_MINUTE: '0',
    WORKERS: 'false',
    DATA_DIR: dataDir,
    DEVNET_PORT: String(await freePorts()),
    ...env,
  });
}

/** Worker passes with the clock moved past each wait (poll intervals, backoffs) — what the timers would run. */
export async function drainWorkers(service: Pick<RunningService, 'runWorkers'>, clock: ShiftableClock, passes: number, stepMs = 2_000): Promise<void> {
  for (let i = 0; i < passes; i++) {
    clock.offsetMs += stepMs;
    await service.runWorkers();
  }
}

/**
 * Worker passes until `done` holds, at most `passes` (then `done`'s last answer stands for the
 * test to assert): for a step whose passes depend on the chain's pace, not on the service's rules.
 */
export async function drainUntil(service: Pick<RunningService, 'runWorkers'>, clock: ShiftableClock, done: () => Promise<boolean>, passes = 12): Promise<void> {
  for (let i = 0; i < passes && !(await done()); i++) await drainWorkers(service, clock, 1);
}
