/**
 * What the HTTP adapter drives: the use cases, the paid entrypoints and the payment flow,
 * plus health. Built once by the composition root.
 */
import type { Facilitator } from '../ports/facilitator.js';
import type { Logger } from '../ports/logger.js';
import type { NetworkDetector } from '../ports/network-detector.js';
import type { RateLimiter } from '../ports/rate-limiter.js';
import type { Network } from '../domain/network.js';
import { PROBE_CACHE_MS, type Availability, type CheckStatus, type DependencyStatus } from './kit/availability.js';
import type { AnyRead } from './kit/catalogue/operation.js';
import { reads } from './catalogue.js';
import { entrypoints } from './catalogue.js';
import { type AnyEntrypoint } from './kit/catalogue/entrypoint.js';
import { healthCounters, type AppMetrics } from './kit/metrics.js';
import { PaymentFlow, type PipelineDeps } from './payments/index.js';
import type { PriceBoard } from './pricing/index.js';

export type { CheckStatus };

export interface HealthReport {
  status: 'ok' | 'degraded';
  version: string;
  checks: { database: CheckStatus; chain: CheckStatus; facilitator: CheckStatus; rateLimiter: CheckStatus };
  /** Only when some network's chain is not the one its books were kept on (docs/decisions/0066): what differs, per network. */
  foreignChains?: Partial<Record<Network, string>>;
  counters: Record<string, number>;
}

/** GET /health's document, and whether the service can answer 200 (the database answers, and every chain is the books'). */
export interface HealthAnswer {
  report: HealthReport;
  required: boolean;
}

/** GET /readyz: what this process needs to do its job, each named (docs/operations.md, "Health"). */
export interface ReadinessReport {
  ready: boolean;
  checks: {
    database: CheckStatus;
    /** Each network's chain RPC. */
    chains: Partial<Record<Network, 'ok' | 'down'>>;
    facilitator: CheckStatus;
    /** Added by the composition root, e.g. `workers` in a process that runs them. */
    [extra: string]: CheckStatus | Partial<Record<Network, 'ok' | 'down'>>;
  };
}

export interface ApplicationDeps extends PipelineDeps {
  rateLimiter: RateLimiter | null;
  /** Each network's chain, and the facilitator: probed once a second for /health, /readyz and before each 402. */
  availability: Availability;
  /** The quote router as GET /api/prices reports it. */
  priceBoard: PriceBoard;
}

/** How long one round of health probes answers for: a probe hammered by a load balancer costs one round a second. */
export const HEALTH_CACHE_MS = PROBE_CACHE_MS;

export class Application {
  readonly flow: PaymentFlow;
  private probed: { at: number; checks: Promise<OwnChecks> } | null = null;
  /** The last health answer and what it was made of (the rounds, the counters' generation): the same while none of them moved. */
  private lastHealth: LastHealth | null = null;
  private readonly readinessChecks = new Map<string, () => CheckStatus | Promise<CheckStatus>>();
  /** The catalogue of operations (docs/decisions/0043): the paid entrypoints by name, and the free reads. */
  readonly entrypoints: ReadonlyMap<string, AnyEntrypoint>;
  readonly reads: readonly AnyRead[] = reads();

  constructor(readonly deps: ApplicationDeps) {
    this.flow = new PaymentFlow(deps);
    this.entrypoints = new Map(entrypoints().map((e) => [e.name, e]));
  }

  get detector(): NetworkDetector {
    return this.deps.detector;
  }
  get facilitator(): Facilitator {
    return this.deps.facilitator;
  }
  get logger(): Logger {
    return this.deps.logger;
  }
  get metrics(): AppMetrics {
    return this.deps.metrics;
  }

  /** A check /readyz adds to its own (`workers` in a process that runs them); `down` makes the process not ready. */
  addReadinessCheck(name: string, check: () => CheckStatus | Promise<CheckStatus>): void {
    this.readinessChecks.set(name, check);
  }

  /**
   * The database is required (503 when down); the others degrade the service. The probes run at
   * most once a second (callers within it share the round, in flight or done); the counters are
   * always current. While neither round nor any counter moved, the answer is the same promise of
   * the same object (a caller may keep what it made of it: the HTTP adapter keeps its bytes,
   * decision 0062) — a poll of /health costs a comparison.
   */
  health(): Promise<HealthAnswer> {
    const state = this.healthState();
    const last = this.lastHealth;
    if (last && sameHealthState(last, state)) return last.answer;
    const made: LastHealth = { ...state, answer: this.healthOf(state.own, state.deps) };
    made.answer.then(
      (result) => (made.result = result),
      () => undefined, // the callers of `answer` see the failure
    );
    this.lastHealth = made;
    return made.answer;
  }

  /** `health()`'s answer when it is known without waiting — made already, and nothing in it moved since — else undefined. */
  healthNow(): HealthAnswer | undefined {
    const last = this.lastHealth;
    return last?.result && sameHealthState(last, this.healthState()) ? last.result : undefined;
  }

  /** What a health answer is made of now: the probe rounds, and the counters' generation — read before the counters are, so one that moves meanwhile makes the next call read them again. */
  private healthState(): HealthState {
    return { own: this.ownChecks(), deps: this.deps.availability.fresh(), generation: this.deps.metrics.generation };
  }

  private async healthOf(ownRound: Promise<OwnChecks>, depsRound: Promise<DependencyStatus>): Promise<HealthAnswer> {
    const [own, deps] = await Promise.all([ownRound, depsRound]);
    const chains = Object.values(deps.chains);
    const chain: CheckStatus = chains.every((c) => c === 'ok') ? 'ok' : chains.some((c) => c === 'ok') ? 'degraded' : 'down';
    const checks = { database: own.database, chain, facilitator: deps.facilitator, rateLimiter: own.rateLimiter };
    const allOk = Object.values(checks).every((c) => c === 'ok');
    return {
      report: {
        status: allOk ? 'ok' : 'degraded',
        version: this.deps.settings.serviceVersion,
        checks,
        ...(deps.foreign ? { foreignChains: deps.foreign } : {}),
        counters: await healthCounters(this.deps.metrics),
      },
      // A chain that is not the books' is worse than one that is down: whatever is sent there is lost to them.
      required: checks.database !== 'down' && !deps.foreign,
    };
  }

  /**
   * Ready when the database, every network's chain and the facilitator answer, and every added
   * check is ok; the rate limiter only degrades (its fallback holds the budget). Same once-a-second
   * rounds as `health`.
   */
  async readiness(): Promise<ReadinessReport> {
    const [{ database }, deps, extra] = await Promise.all([
      this.ownChecks(),
      this.deps.availability.fresh(),
      Promise.all([...this.readinessChecks].map(async ([name, check]) => [name, await timed(async () => check())] as const)),
    ]);
    const checks = { database, chains: deps.chains, facilitator: deps.facilitator, ...Object.fromEntries(extra) };
    const ready =
      database === 'ok' && deps.facilitator !== 'down' && Object.values(deps.chains).every((c) => c === 'ok') && extra.every(([, c]) => c === 'ok');
    return { ready, checks };
  }

  private ownChecks(): Promise<OwnChecks> {
    const now = this.deps.clock.now().getTime();
    if (!this.probed || now - this.probed.at >= HEALTH_CACHE_MS || now < this.probed.at) {
      this.probed = {
        at: now,
        checks: Promise.all([
          timed(async () => (await this.deps.uow.run((s) => s.events.lastId()), 'ok')),
          this.deps.rateLimiter ? timed(() => this.deps.rateLimiter!.health()) : Promise.resolve<CheckStatus>('ok'),
        ]).then(([database, rateLimiter]) => ({ database, rateLimiter })),
      };
    }
    return this.probed.checks;
  }
}

type OwnChecks = { database: CheckStatus; rateLimiter: CheckStatus };

/** What a health answer is made of: the probe rounds (their promises, one per round), the counters' generation. */
interface HealthState {
  own: Promise<OwnChecks>;
  deps: Promise<DependencyStatus>;
  generation: number;
}

const sameHealthState = (a: HealthState, b: HealthState): boolean => a.own === b.own && a.deps === b.deps && a.generation === b.generation;

/** The last health answer, what it was made of, and its result once known. */
interface LastHealth extends HealthState {
  answer: Promise<HealthAnswer>;
  result?: HealthAnswer;
}

async function timed(probe: () => Promise<CheckStatus>): Promise<CheckStatus> {
  try {
    return await withTimeout(probe(), 2_000);
  } catch {
    return 'down';
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), ms))),
  ]);
}
