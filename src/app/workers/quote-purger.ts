/**
 * Every free `GET /api/quote` (and every held buy_tokens price) writes a quote row, and every 402
 * holds its asset prices (EURC, docs/pricing.md) in an asset quote row; this deletes
 * them once they are expired and past a grace, in bounded runs so a backlog never holds the
 * database for long: a full run is followed by another on the next pass, a short one waits for
 * the interval.
 */
import type { Clock } from '../../ports/clock.js';
import type { Logger } from '../../ports/logger.js';
import type { UnitOfWork } from '../../ports/unit-of-work.js';

export interface QuotePurgerDeps {
  uow: UnitOfWork;
  clock: Clock;
  logger: Logger;
  /** Quotes are kept this long after they expire (a late reconciler still finds them). */
  retentionMs: number;
  /** At most this many rows per run. */
  batch: number;
  /** Pause between runs once the backlog is gone. */
  intervalMs: number;
}

export class QuotePurger {
  private nextRunAt = 0;

  constructor(private readonly deps: QuotePurgerDeps) {}

  async runOnce(): Promise<number> {
    const now = this.deps.clock.now().getTime();
    if (now < this.nextRunAt) return 0;
    const before = new Date(now - this.deps.retentionMs);
    // A payment keeps its quote's id and price itself, so asset quotes are never needed after they expire.
    const purged = Math.max(
      await this.deps.uow.run((s) => s.quotes.purgeExpired(before, this.deps.batch)),
      await this.deps.uow.run((s) => s.assetQuotes.purgeExpired(before, this.deps.batch)),
    );
    if (purged < this.deps.batch) this.nextRunAt = now + this.deps.intervalMs;
    if (purged > 0) this.deps.logger.debug('purged expired quotes', { purged });
    return purged;
  }
}
