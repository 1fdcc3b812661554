/**
 * Which process signs custody's transactions (docs/decisions/0031). Custody is one key (the
 * treasury's), and one key's nonces must come from one queue, so among the processes sharing a
 * database exactly one signs for custody: the holder of custody's signer lock. It runs the custody
 * outboxes (deployments, deliveries, graduations, payouts) and answers the intents other processes
 * record for their requests' pulls and swaps; every other process asks it (custody-intents.ts)
 * and its workers stand by, taking the lock over on their next pass when its holder dies.
 *
 * On a store only one process uses (SQLite, memory) that process always holds it.
 */
import type { Logger } from '../../ports/logger.js';
import type { SignerLocks } from '../../ports/signer-locks.js';

/** What a request needs to know: whether it may sign for custody here, or must ask. */
export interface CustodyRole {
  signing(): boolean;
}

export interface CustodyLeaseDeps {
  locks: SignerLocks;
  /** Custody's address (the treasury key's). */
  custody: string;
  logger: Logger;
  /**
   * Runs when this process takes custody back after losing it: custody's nonce queue must ask
   * the chain again, since another process signed meanwhile. (A process that never signed for
   * custody has nothing cached: its queue asks the chain at its first signature anyway.)
   */
  onGained: () => void;
  /** How often a standing-by process says so in the log. */
  standbyLogMs?: number;
}

export class CustodyLease implements CustodyRole {
  private signed = false;
  private lost = false;
  private standbyLoggedAt = -Infinity;

  constructor(private readonly deps: CustodyLeaseDeps) {}

  /** Whether this process signs for custody now (false from the moment its lock is lost). */
  signing(): boolean {
    const holds = this.deps.locks.holds(this.deps.custody);
    if (this.signed && !holds) {
      this.signed = false;
      this.lost = true;
      this.deps.logger.error("custody's signer lock was lost (database session ended); this process stops signing for custody", { custody: this.deps.custody });
    }
    return holds;
  }

  /** Signs for custody if it may: takes the lock when no live process holds it. */
  async claim(): Promise<boolean> {
    if (this.signing()) {
      this.signed = true;
      return true;
    }
    let taken: boolean;
    try {
      taken = await this.deps.locks.tryAcquire(this.deps.custody);
    } catch (e) {
      this.deps.logger.warn("custody's signer lock could not be asked for; will retry", { error: (e as Error).message });
      return false;
    }
    if (taken) {
      this.signed = true;
      if (this.lost) this.deps.onGained();
      this.deps.logger.info("this process now signs custody's transactions", { custody: this.deps.custody });
      return true;
    }
    const now = Date.now();
    if (now - this.standbyLoggedAt >= (this.deps.standbyLogMs ?? 60_000)) {
      this.standbyLoggedAt = now;
      const holder = await this.deps.locks.holder(this.deps.custody).catch(() => null);
      this.deps.logger.info("custody signs in another process; this process's workers stand by to take over", { custody: this.deps.custody, holder });
    }
    return false;
  }
}
