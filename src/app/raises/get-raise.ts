/**
 * GET /api/tokens/:id/raise (docs/api.md "Fair launches"): a fair launch's raise — its state, goal,
 * what is pledged, by wallet and by pledge, and once FILLED each pledge's tokens at the one price.
 */
import { averagePriceUsd } from '../../domain/curve.js';
import { RaiseNotFound } from '../../domain/errors.js';
import { formatRatio, formatTokens, formatUsd } from '../../domain/money.js';
import { pledgedUsd, type Pledge, type Raise } from '../../domain/raise.js';
import type { Stores } from '../../ports/unit-of-work.js';
import type { AppDeps } from '../kit/deps.js';
import type { z } from 'zod';
import type { pledgeOutput, raiseOutput } from './schemas.js';
import { loadToken } from '../trading/index.js';

export type RaiseView = z.output<typeof raiseOutput>;
export type PledgeView = z.output<typeof pledgeOutput>['pledge'];

export function pledgeView(p: Pledge): PledgeView {
  return {
    pledgeId: p.pledgeId,
    wallet: p.wallet,
    usdAmount: formatUsd(p.usdAmount),
    state: p.state,
    tokens: formatTokens(p.tokens),
    dropReason: p.dropReason,
    payoutId: p.payoutId,
    createdAt: p.createdAt.toISOString(),
  };
}

/** The raise as the API shows it: COLLECTING is still RAISING to a reader, `settling` says it ended. */
export function raiseView(r: Raise, pledges: readonly Pledge[]): RaiseView {
  const wallets = new Map<string, { wallet: string; usd: bigint; tokens: bigint }>();
  for (const p of pledges) {
    if (p.state !== 'PLEDGED' && p.state !== 'COLLECTED') continue;
    const w = wallets.get(p.wallet.toLowerCase()) ?? { wallet: p.wallet, usd: 0n, tokens: 0n };
    wallets.set(p.wallet.toLowerCase(), { ...w, usd: w.usd + p.usdAmount, tokens: w.tokens + p.tokens });
  }
  const pledged = pledgedUsd(pledges);
  return {
    tokenId: r.tokenId,
    network: r.network,
    state: r.state === 'COLLECTING' ? 'RAISING' : r.state,
    settling: r.state === 'COLLECTING',
    goalUsd: formatUsd(r.goalUsd),
    maxPerWalletUsd: r.maxPerWalletUsd === null ? null : formatUsd(r.maxPerWalletUsd),
    endsAt: r.endsAt.toISOString(),
    pledgedUsd: formatUsd(pledged),
    progress: formatRatio(pledged, r.goalUsd, 4),
    pledgers: wallets.size,
    collectedUsd: formatUsd(r.collectedUsd),
    tokensBought: formatTokens(r.tokensBought),
    remainderTokens: formatTokens(r.remainderTokens),
    priceUsd: r.state === 'FILLED' ? averagePriceUsd(r.collectedUsd, r.tokensBought) : null,
    tradeId: r.tradeId,
    failure: r.failure,
    byWallet: [...wallets.values()].map((w) => ({ wallet: w.wallet, pledgedUsd: formatUsd(w.usd), tokens: formatTokens(w.tokens) })),
    pledges: pledges.map(pledgeView),
  };
}

/** The raise of `tokenId` (TOKEN_NOT_FOUND, or RAISE_NOT_FOUND for a token launched on its curve). */
export async function loadRaise(stores: Stores, tokenId: string): Promise<Raise> {
  const raise = await stores.raises.get(tokenId);
  if (raise) return raise;
  await loadToken(stores, tokenId);
  throw new RaiseNotFound(tokenId);
}

export function getRaise(deps: Pick<AppDeps, 'uow'>, tokenId: string): Promise<RaiseView> {
  return deps.uow.run(async (stores) => {
    const raise = await loadRaise(stores, tokenId);
    return raiseView(raise, await stores.raises.pledgesOf(tokenId));
  });
}
