/**
 * What the HTTP adapter drives: the use cases, the paid entrypoints and the payment flow,
 * plus health. Built once by the composition root.
 */
import type { Facilitator } from '../ports/facilitator.js';
import type { Logger } from '../ports/logger.js';
import type { NetworkDetector } from '../ports/network-detector.js';
import type { RateLimiter } from '../ports/rate-limiter.js';
import { entrypoints, type AnyEntrypoint } from './entrypoints.js';
import type { Metrics } from './metrics.js';
import { PaymentFlow } from './payments/payment-flow.js';
import type { PipelineDeps } from './payments/pipeline/deps.js';
import type { PriceBoard } from './pricing/price-board.js';

export type CheckStatus = 'ok' | 'degraded' | 'down';

export interface HealthReport {
  status: 'ok' | 'degraded';
  version: string;
  checks: { database: CheckStatus; chain: CheckStatus; facilitator: CheckStatus; rateLimiter: CheckStatus };
  counters: Record<string, number>;
}

export interface ApplicationDeps extends PipelineDeps {
  rateLimiter: RateLimiter | null;
  /** Optional probe of the chain RPCs (devnet or Base); null when the service has none. */
  chainHealth: (() => Promise<CheckStatus>) | null;
  /** The quote router as GET /api/prices reports it. */
  priceBoard: PriceBoard;
}

type Checks = HealthReport['checks'];

/** How long one round of health probes answers for: a probe hammered by a load balancer costs one round a second. */
export const HEALTH_CACHE_MS = 1_000;

export class Application {
  readonly flow: PaymentFlow;
  private probed: { at: number; checks: Promise<Checks> } | null = null;
  readonly entrypoints: ReadonlyMap<string, AnyEntrypoint>;

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
  get metrics(): Metrics {
    return this.deps.metrics;
  }

  /**
   * The database is required (503 when down); the others degrade the service. The probes run at
   * most once a second (callers within it share the round, in flight or done); the counters are
   * always current.
   */
  async health(): Promise<{ report: HealthReport; required: boolean }> {
    const now = this.deps.clock.now().getTime();
    if (!this.probed || now - this.probed.at >= HEALTH_CACHE_MS || now < this.probed.at) this.probed = { at: now, checks: this.probe() };
    const checks = await this.probed.checks;
    const allOk = Object.values(checks).every((c) => c === 'ok');
    return {
      report: {
        status: allOk ? 'ok' : 'degraded',
        version: this.deps.settings.serviceVersion,
        checks,
        counters: this.deps.metrics.snapshot(),
      },
      required: checks.database !== 'down',
    };
  }

  private async probe(): Promise<Checks> {
    const timed = async (probe: () => Promise<CheckStatus>): Promise<CheckStatus> => {
      try {
        return await withTimeout(probe(), 2_000);
      } catch {
        return 'down';
      }
    };
    const [database, chain, facilitator, rateLimiter] = await Promise.all([
      timed(async () => (await this.deps.uow.run((s) => s.events.lastId()), 'ok')),
      this.deps.chainHealth ? timed(this.deps.chainHealth) : Promise.resolve<CheckStatus>('ok'),
      timed(async () => ((await this.deps.facilitator.supported()).length > 0 ? 'ok' : 'degraded')),
      this.deps.rateLimiter ? timed(() => this.deps.rateLimiter!.health()) : Promise.resolve<CheckStatus>('ok'),
    ]);
    return { database, chain, facilitator, rateLimiter };
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), ms))),
  ]);
}
