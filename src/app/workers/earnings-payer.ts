/**
 * Pays creators' and referrers' fee shares on chain (docs/api.md "Fees and earnings"): each pass,
 * every wallet whose unpaid shares reach the threshold gets one USDC payout per reason
 * (`creator_fee`, `cashback`, `referral_fee`), queued in the same transaction that marks the shares it pays —
 * so a share is paid once, by one payout, whatever crashes or runs twice. The payout outbox sends
 * it with the rules every payout keeps (recorded before broadcast, never twice, re-signed when
 * dropped).
 */
import { ROLES_OF_REASON } from '../../domain/earnings.js';
import { newPayout } from '../../domain/payout.js';
import type { Clock } from '../../ports/clock.js';
import type { IdGenerator } from '../../ports/id-generator.js';
import type { Logger } from '../../ports/logger.js';
import type { UnitOfWork } from '../../ports/unit-of-work.js';

export interface EarningsPayerDeps {
  uow: UnitOfWork;
  clock: Clock;
  ids: IdGenerator;
  logger: Logger;
  /** Unpaid shares below this wait for more (USD micro-units). */
  minPayoutUsd: bigint;
  /** Wallets paid per reason per pass. */
  batch?: number;
}

export class EarningsPayer {
  constructor(private readonly deps: EarningsPayerDeps) {}

  /** One pass; returns the payouts queued. */
  async runOnce(): Promise<number> {
    let queued = 0;
    for (const [reason, roles] of Object.entries(ROLES_OF_REASON) as [keyof typeof ROLES_OF_REASON, typeof ROLES_OF_REASON.creator_fee][]) {
      const due = await this.deps.uow.run((s) => s.earnings.unpaid(roles, this.deps.minPayoutUsd, this.deps.batch ?? 50));
      for (const d of due) {
        const payout = await this.deps.uow.transaction(async (stores) => {
          const payoutId = this.deps.ids.next('pout');
          // Only the shares still unpaid now: another pass (or process) may have paid them first.
          const amount = await stores.earnings.claimUnpaid(d.network, d.wallet, roles, payoutId);
          if (amount === 0n) return null;
          const now = this.deps.clock.now();
          return stores.payouts.enqueue(newPayout({ payoutId, network: d.network, wallet: d.wallet, amount, reason, sourceId: `earnings:${payoutId}`, now }));
        });
        if (!payout) continue;
        queued += 1;
        this.deps.logger.info('earnings payout queued', { payoutId: payout.payoutId, wallet: payout.wallet, reason, amount: payout.amount.toString() });
      }
    }
    return queued;
  }
}
