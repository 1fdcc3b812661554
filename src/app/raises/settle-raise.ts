/**
 * A fair launch's raise at its end (docs/api.md "Fair launches", decision 0048), in steps each
 * committed by a compare-and-set on the raise's (or the pledge's) state, so that any number of
 * workers, and a worker restarted after a crash anywhere, settle it exactly once:
 *
 *   end       RAISING → FAILED (the pledges still usable miss the goal: nothing is collected)
 *             RAISING → COLLECTING (they reach it; the unusable ones DROPPED)
 *   collect   each PLEDGED pledge collected (held/collect.ts, exactly once per pledge) → COLLECTED,
 *             or DROPPED with its reason; one not mined yet is asked again next pass
 *   finish    COLLECTING → FILLED: one buy on the curve for the collected total, its tokens split
 *             pro rata to the pledges (rounded down; custody keeps the remainder), booked and
 *             delivered per pledger — or COLLECTING → FAILED when drops took the total below
 *             the goal: every collected pledge paid back in full (REFUNDED)
 *
 * Whichever way it ends, the token trades from then on, its launch fee decaying from that moment.
 */
import { quoteBuyWithUsd, spotPriceUsd, averagePriceUsd } from '../../domain/curve.js';
import { HeldAuthorizationInvalid, InsufficientBalance } from '../../domain/errors.js';
import { formatTokens, formatUsd } from '../../domain/money.js';
import {
  decideAfterCollecting,
  decideAtEnd,
  splitProRata,
  transitionPledge,
  transitionRaise,
  type Pledge,
  type Raise,
  type RaiseFailure,
} from '../../domain/raise.js';
import { opensTrading, withCurve, type Token } from '../../domain/token.js';
import type { Stores } from '../../ports/unit-of-work.js';
import type { AppDeps } from '../kit/deps.js';
import { CollectPending, type HeldAuthorization, collectHeld, heldUnusable, refundCollected, stablecoin } from '../held/index.js';
import { bookBuy, deliverBought, graduate, loadToken } from '../trading/index.js';
import { raiseEvent } from './pledge.js';

export type RaiseStep = 'waiting' | 'collecting' | 'filled' | 'failed' | 'settled_elsewhere';

/** Another process moved the raise first: its transaction is rolled back, nothing is booked twice. */
class LostRace extends Error {}

const held = (p: Pledge): HeldAuthorization => {
  const { asset: _asset, ...a } = p.authorization;
  return a;
};
const collectKey = (p: Pledge) => `pledge:${p.pledgeId}`;
const pledged = (ps: readonly Pledge[]) => ps.filter((p) => p.state === 'PLEDGED');

/** Takes the raise as far as it can go now; returns where it stands. */
export async function settleRaise(deps: Pick<AppDeps, 'uow' | 'clock' | 'ids' | 'tokenIssuer' | 'settings' | 'custody' | 'logger' | 'metrics'>, raise: Raise): Promise<RaiseStep> {
  try {
    if (raise.state === 'RAISING') {
      if (deps.clock.now() < raise.endsAt) return 'waiting';
      const next = await endRaise(deps, raise);
      if (next.state !== 'COLLECTING') return 'failed';
      raise = next;
    }
    if (raise.state !== 'COLLECTING') return 'settled_elsewhere';
    if (!(await collectPledges(deps, raise))) return 'collecting';
    return await finishRaise(deps, raise.tokenId);
  } catch (e) {
    if (e instanceof LostRace) return 'settled_elsewhere';
    throw e;
  }
}

/**
 * Why a held pledge can no longer be collected now (its window closed, its nonce used or
 * cancelled on chain, its wallet's USDC spent), or null: read before anything is collected.
 */
async function unusableNow(deps: Pick<AppDeps, 'clock' | 'tokenIssuer'>, p: Pledge): Promise<string | null> {
  return (await heldUnusable(deps, p.network, stablecoin(p.network, p.authorization.asset).address, p.authorization))?.reason ?? null;
}

/** RAISING → FAILED or COLLECTING, by the pledges still usable at the end (read from the chain first, outside any transaction). */
async function endRaise(deps: Pick<AppDeps, 'uow' | 'clock' | 'ids' | 'tokenIssuer'>, raise: Raise): Promise<Raise> {
  const all = await deps.uow.run((s) => s.raises.pledgesOf(raise.tokenId));
  const reasons = new Map<string, string>();
  for (const p of pledged(all)) {
    const why = await unusableNow(deps, p);
    if (why) reasons.set(p.pledgeId, why);
  }
  const usable = pledged(all).filter((p) => !reasons.has(p.pledgeId));
  return deps.uow.transaction(async (stores) => {
    const now = deps.clock.now();
    const token = await loadToken(stores, raise.tokenId, true);
    if (decideAtEnd(raise, usable) === 'fail') {
      // Nothing is collected: every pledge is released unused.
      for (const p of pledged(all)) await movePledge(stores, transitionPledge(p, 'RELEASED', now), 'PLEDGED');
      return failRaise(deps, stores, token, raise, 'goal_not_reached', [], now);
    }
    for (const p of pledged(all)) {
      const why = reasons.get(p.pledgeId);
      if (why) await movePledge(stores, transitionPledge(p, 'DROPPED', now, { dropReason: why }), 'PLEDGED');
    }
    return moveRaise(stores, transitionRaise(raise, 'COLLECTING', now), 'RAISING');
  });
}

/** Collects every PLEDGED pledge once; true when none is left to collect. */
async function collectPledges(deps: Pick<AppDeps, 'uow' | 'clock' | 'tokenIssuer' | 'settings' | 'custody' | 'logger' | 'metrics'>, raise: Raise): Promise<boolean> {
  let done = true;
  for (const p of pledged(await deps.uow.run((s) => s.raises.pledgesOf(raise.tokenId)))) {
    const usdc = stablecoin(p.network, p.authorization.asset).address;
    let next: Pledge;
    try {
      await collectHeld(deps, collectKey(p), p.network, usdc, held(p), p.tokenId);
      next = transitionPledge(p, 'COLLECTED', deps.clock.now());
    } catch (e) {
      if (e instanceof CollectPending) {
        done = false;
        continue;
      }
      if (!(e instanceof HeldAuthorizationInvalid || e instanceof InsufficientBalance)) throw e;
      const why = (e.details?.why as string | undefined) ?? (e.details?.reason as string | undefined) ?? e.code;
      next = transitionPledge(p, 'DROPPED', deps.clock.now(), { dropReason: why });
      deps.logger?.warn('a pledge could not be collected; dropped', { pledgeId: p.pledgeId, tokenId: p.tokenId, reason: why });
    }
    // A compare-and-set another worker may have won with the same outcome (the collect is keyed).
    await deps.uow.run((s) => s.raises.updatePledge(next, 'PLEDGED'));
  }
  return done;
}

/** COLLECTING → FILLED (one buy, split pro rata) or FAILED (every collected pledge paid back), in one transaction. */
function finishRaise(deps: Pick<AppDeps, 'uow' | 'clock' | 'ids' | 'settings'>, tokenId: string): Promise<RaiseStep> {
  return deps.uow.transaction(async (stores) => {
    const now = deps.clock.now();
    const token = await loadToken(stores, tokenId, true);
    const raise = await stores.raises.get(tokenId);
    if (raise?.state !== 'COLLECTING') throw new LostRace();
    const all = await stores.raises.pledgesOf(tokenId);
    const collected = all.filter((p) => p.state === 'COLLECTED');
    if (decideAfterCollecting(raise, all) === 'fill') {
      await fillRaise(deps, stores, token, raise, collected, now);
      return 'filled';
    }
    await failRaise(deps, stores, token, raise, 'collected_below_goal', collected, now);
    return 'failed';
  });
}

/**
 * The raise's one buy: the collected total on the fresh curve at the base fee (a launch fee
 * starts only when trading does), its tokens split pro rata to the pledges, each pledger's share
 * booked as its own trade at the one price (its USD, its pro-rata part of the fee, its tokens),
 * its position and its delivery — as any buy books them, fee shares included.
 */
async function fillRaise(deps: Pick<AppDeps, 'ids' | 'settings'>, stores: Stores, token: Token, raise: Raise, collected: readonly Pledge[], now: Date): Promise<void> {
  const total = collected.reduce((s, p) => s + p.usdAmount, 0n);
  const q = quoteBuyWithUsd(token.params, token.curve, total);
  const tokens = splitProRata(q.tokensOut, collected.map((p) => p.usdAmount));
  const fees = splitProRata(q.feeUsd, collected.map((p) => p.usdAmount));
  let moved = opensTrading(withCurve(token, q.after, now), now);
  const byWallet = new Map<string, { wallet: string; usd: bigint; fee: bigint; tokens: bigint }>();
  collected.forEach((p, i) => {
    const w = byWallet.get(p.wallet.toLowerCase()) ?? { wallet: p.wallet, usd: 0n, fee: 0n, tokens: 0n };
    byWallet.set(p.wallet.toLowerCase(), { ...w, usd: w.usd + p.usdAmount, fee: w.fee + fees.shares[i]!, tokens: w.tokens + tokens.shares[i]! });
  });
  // The fee's rounding (less than a micro-unit per pledge) is booked on the first pledger's trade, so the trades' fees add up to the fee taken.
  const first = byWallet.values().next().value!;
  first.fee += fees.remainder;
  let firstTradeId: string | null = null;
  for (const w of byWallet.values()) {
    const booked = await bookBuy(deps, stores, w.wallet, { token: moved, venue: 'curve', grossUsd: w.usd, feeUsd: w.fee, tokens: w.tokens, payment: undefined, now, referrer: null });
    firstTradeId ??= booked.trade.tradeId;
    moved = booked.token;
    if (w.tokens > 0n) await deliverBought(deps, stores, w.wallet, booked, now);
    if (moved.state === 'GRADUATED' && moved.pool === null) moved = await graduate(deps, stores, moved, booked.trade, now);
  }
  for (const [i, p] of collected.entries()) await movePledge(stores, { ...p, tokens: tokens.shares[i]!, updatedAt: now }, 'COLLECTED');
  const filled = transitionRaise(raise, 'FILLED', now, { collectedUsd: total, tokensBought: q.tokensOut, remainderTokens: tokens.remainder, tradeId: firstTradeId });
  await moveRaise(stores, filled, 'COLLECTING');
  await stores.events.append(
    raiseEvent(
      'raise.filled',
      filled,
      {
        collectedUsd: formatUsd(total),
        feeUsd: formatUsd(q.feeUsd),
        tokensBought: formatTokens(q.tokensOut),
        remainderTokens: formatTokens(tokens.remainder),
        priceUsd: averagePriceUsd(total, q.tokensOut),
        spotPriceUsd: spotPriceUsd(moved.curve),
        pledges: collected.map((p, i) => ({ pledgeId: p.pledgeId, wallet: p.wallet, usdAmount: formatUsd(p.usdAmount), tokens: formatTokens(tokens.shares[i]!) })),
      },
      now,
    ),
  );
}

/** FAILED: the token trades from now; what was collected (if anything) is queued back to each pledger in full. */
async function failRaise(deps: Pick<AppDeps, 'clock' | 'ids'>, stores: Stores, token: Token, raise: Raise, failure: RaiseFailure, collected: readonly Pledge[], now: Date): Promise<Raise> {
  for (const p of collected) {
    const payout = await refundCollected(deps, stores, { network: p.network, wallet: p.wallet, asset: p.authorization.asset, amount: p.authorization.value, sourceId: p.pledgeId });
    await movePledge(stores, transitionPledge(p, 'REFUNDED', now, { payoutId: payout.payoutId }), 'COLLECTED');
  }
  const collectedUsd = collected.reduce((s, p) => s + p.usdAmount, 0n);
  const failed = transitionRaise(raise, 'FAILED', now, { failure, collectedUsd });
  await moveRaise(stores, failed, raise.state);
  await stores.tokens.update(opensTrading(token, now));
  await stores.events.append(raiseEvent('raise.failed', failed, { failure, goalUsd: formatUsd(raise.goalUsd), refundedUsd: formatUsd(collectedUsd) }, now));
  return failed;
}

async function moveRaise(stores: Stores, next: Raise, from: Raise['state']): Promise<Raise> {
  if (!(await stores.raises.update(next, from))) throw new LostRace();
  return next;
}

async function movePledge(stores: Stores, next: Pledge, from: Pledge['state']): Promise<void> {
  if (!(await stores.raises.updatePledge(next, from))) throw new LostRace();
}
