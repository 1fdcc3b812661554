/**
 * Releases vested dev buys (docs/api.md "Fees and earnings", decision 0079): each pass takes the
 * tokens whose vesting is due a look, and queues what vested since the last release as a
 * delivery to the creator's wallet — in one transaction with the vesting's compare-and-set on
 * its count of releases and the `vesting.released` event. A crash before the commit releases
 * nothing (the next pass does it); after it, the delivery outbox sends the tokens exactly once,
 * like any delivery (recorded before broadcast, never sent twice). Two passes, or two processes,
 * release a token once: the second loses the compare-and-set.
 */
import { newDelivery, type Delivery } from '../../domain/delivery.js';
import { formatTokens } from '../../domain/money.js';
import type { Token } from '../../domain/token.js';
import { releaseAt } from '../../domain/vesting.js';
import type { Clock } from '../../ports/clock.js';
import type { IdGenerator } from '../../ports/id-generator.js';
import type { Logger } from '../../ports/logger.js';
import type { UnitOfWork } from '../../ports/unit-of-work.js';
import { deliveryView, vestingView } from '../kit/views.js';

export interface VestingReleaserDeps {
  uow: UnitOfWork;
  clock: Clock;
  ids: IdGenerator;
  logger: Logger;
  /** Tokens looked at per pass. */
  batch?: number;
  /** Test-only: inside a release's transaction, after its writes and before its commit (throw = crash). */
  beforeCommit?: (delivery: Delivery) => Promise<void>;
  /** Test-only: after a release committed. */
  afterRelease?: (delivery: Delivery) => Promise<void>;
}

export class VestingReleaser {
  constructor(private readonly deps: VestingReleaserDeps) {}

  /** One pass; returns the releases queued. */
  async runOnce(): Promise<number> {
    const { deps } = this;
    const due = await deps.uow.run((s) => s.tokens.dueVestings(deps.clock.now(), deps.batch ?? 50));
    let released = 0;
    for (const token of due) {
      try {
        const delivery = await this.release(token);
        if (!delivery) continue;
        released += 1;
        deps.logger.info('vested tokens released', { tokenId: token.tokenId, deliveryId: delivery.deliveryId, tokens: formatTokens(delivery.amount) });
        await deps.afterRelease?.(delivery);
      } catch (e) {
        // One token's trouble does not hold up the others: the next pass looks again.
        deps.logger.warn('releasing vested tokens failed; will retry', { tokenId: token.tokenId, error: (e as Error).message });
      }
    }
    return released;
  }

  /** The release due now of `token`'s vesting, as read by this pass: null when none is (or another pass released first). */
  private release(token: Token): Promise<Delivery | null> {
    const { deps } = this;
    const now = deps.clock.now();
    const vesting = token.vesting;
    const due = vesting && releaseAt(vesting, now);
    if (!vesting || !due) return Promise.resolve(null);
    return deps.uow.transaction(async (stores) => {
      if (!(await stores.tokens.releaseVesting(token.tokenId, due.vesting, vesting.releases))) return null;
      if (due.tokens === 0n) return null; // only when to look next moved (the cliff of a schedule vesting from there)
      const delivery = newDelivery({
        deliveryId: deps.ids.next('dlv'),
        network: token.network,
        tokenId: token.tokenId,
        wallet: token.creator,
        amount: due.tokens,
        sourceId: `vesting:${token.tokenId}:${due.vesting.releases}`,
        now,
      });
      await stores.deliveries.add(delivery);
      await stores.events.append({
        type: 'vesting.released',
        network: token.network,
        tokenId: token.tokenId,
        data: { tokenId: token.tokenId, wallet: token.creator, tokens: formatTokens(due.tokens), vesting: vestingView(due.vesting), delivery: deliveryView(delivery) },
        createdAt: now,
      });
      await deps.beforeCommit?.(delivery);
      return delivery;
    });
  }
}
