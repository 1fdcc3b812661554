import { newGraduationStep, PENDING_POOL } from '../../domain/graduation.js';
import { poolSeed } from '../../domain/pool.js';
import type { Token } from '../../domain/token.js';
import type { Trade } from '../../domain/trade.js';
import type { Stores } from '../../ports/unit-of-work.js';
import type { AppDeps } from '../kit/deps.js';

/**
 * A token changes venue: its curve sold out with `lastTrade`, so it trades next on a Uniswap v2
 * pool seeded with the curve's reserve (docs/api.md "Graduation"). In the transaction of that
 * last buy, so a graduated token always has its pool on the way: the pool is PENDING, the first
 * step of its seeding is queued (workers/graduation-worker.ts takes it from there) and the
 * graduation is told. Returns the token as it stands now.
 */
export async function graduate(deps: Pick<AppDeps, 'ids' | 'settings'>, stores: Stores, token: Token, lastTrade: Trade, now: Date): Promise<Token> {
  const graduated: Token = { ...token, pool: PENDING_POOL };
  await stores.tokens.update(graduated);
  const seed = poolSeed(graduated.params, graduated.curve, deps.settings.graduationFeeUsd);
  await stores.graduations.enqueue(
    newGraduationStep({
      graduationId: deps.ids.next('grad'),
      network: graduated.network,
      tokenId: graduated.tokenId,
      step: 'approve-token',
      tokenAmount: seed.tokens,
      usdAmount: seed.usd,
      now,
    }),
  );
  await stores.events.append({
    type: 'token.graduated',
    network: graduated.network,
    tokenId: graduated.tokenId,
    data: { tokenId: graduated.tokenId, graduatedAt: now.toISOString(), lastTradeId: lastTrade.tradeId },
    createdAt: now,
  });
  return graduated;
}
