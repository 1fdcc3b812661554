/**
 * What creators and referrers earn (docs/api.md "Fees and earnings"): a wallet's earnings by token
 * and role — accrued, paid (by a confirmed payout) and pending — and creators ranked by earnings.
 */
import { formatUsd } from '../../domain/money.js';
import type { AppDeps } from '../kit/deps.js';

export async function getWalletEarnings(deps: Pick<AppDeps, 'uow' | 'settings'>, wallet: string) {
  const lines = await deps.uow.run((s) => s.earnings.ofWallet(wallet));
  const sum = (pick: (l: (typeof lines)[number]) => bigint) => lines.reduce((total, l) => total + pick(l), 0n);
  return {
    wallet,
    accruedUsd: formatUsd(sum((l) => l.accrued)),
    paidUsd: formatUsd(sum((l) => l.paid)),
    pendingUsd: formatUsd(sum((l) => l.accrued - l.paid)),
    payoutMinUsd: formatUsd(deps.settings.earningsPayoutMinUsd),
    items: lines.map((l) => ({
      network: l.network,
      tokenId: l.tokenId,
      role: l.role,
      accruedUsd: formatUsd(l.accrued),
      paidUsd: formatUsd(l.paid),
      pendingUsd: formatUsd(l.accrued - l.paid),
    })),
  };
}

export async function listCreators(deps: Pick<AppDeps, 'uow' | 'settings'>, limit: number) {
  const top = await deps.uow.run((s) => s.earnings.topCreators(limit));
  return { sort: 'earnings' as const, items: top.map((c, i) => ({ rank: i + 1, wallet: c.wallet, earnedUsd: formatUsd(c.accrued), tokens: c.tokens })) };
}
