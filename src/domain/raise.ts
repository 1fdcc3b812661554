/**
 * A fair launch (docs/api.md "Fair launches", decision 0048): a token created with
 * `launch: { mode: "fair" }` opens a raise instead of its curve. Wallets pledge USDC by signing a
 * ReceiveWithAuthorization the service holds; nothing moves until the raise ends.
 *
 *   RAISING ──end, usable pledges < goal──────────────────────────────▶ FAILED (nothing collected)
 *      │
 *      └──end, usable pledges ≥ goal──▶ COLLECTING ──every pledge collected or dropped──┐
 *                                         collected ≥ goal: one buy, split pro rata ──▶ FILLED
 *                                         collected < goal: each collected pledge paid back ──▶ FAILED
 *
 * Every move is a compare-and-set on the raise's state, so two workers (or a worker restarted
 * after a crash) settle a raise exactly once. The token trades once the raise is FILLED or FAILED.
 */
import { InvariantViolation, ValidationError } from './errors.js';
import type { Network } from './network.js';

export type RaiseState = 'RAISING' | 'COLLECTING' | 'FILLED' | 'FAILED';

export const RAISE_TRANSITIONS: Readonly<Record<RaiseState, readonly RaiseState[]>> = {
  RAISING: ['COLLECTING', 'FAILED'],
  COLLECTING: ['FILLED', 'FAILED'],
  FILLED: [],
  FAILED: [],
};

/** Why a raise failed: its pledges never reached the goal, or dropped pledges took it below. */
export type RaiseFailure = 'goal_not_reached' | 'collected_below_goal';

export interface Raise {
  readonly tokenId: string;
  readonly network: Network;
  readonly state: RaiseState;
  readonly goalUsd: bigint;
  /** The most one wallet may pledge in total; null: no cap. */
  readonly maxPerWalletUsd: bigint | null;
  readonly endsAt: Date;
  /** Once FILLED: the USD collected and bought with, the tokens bought, and custody's remainder after the pro-rata split. */
  readonly collectedUsd: bigint;
  readonly tokensBought: bigint;
  readonly remainderTokens: bigint;
  /** The raise's one buy on the curve, once FILLED. */
  readonly tradeId: string | null;
  readonly failure: RaiseFailure | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export type PledgeState = 'PLEDGED' | 'CANCELLED' | 'COLLECTED' | 'DROPPED' | 'REFUNDED' | 'RELEASED';

export const PLEDGE_TRANSITIONS: Readonly<Record<PledgeState, readonly PledgeState[]>> = {
  // RELEASED: the raise failed under its goal; the authorization was never used.
  PLEDGED: ['CANCELLED', 'COLLECTED', 'DROPPED', 'RELEASED'],
  // REFUNDED: collected, then paid back in full because dropped pledges took the raise below its goal.
  COLLECTED: ['REFUNDED'],
  CANCELLED: [],
  DROPPED: [],
  REFUNDED: [],
  RELEASED: [],
};

/** A wallet's signed USDC (or EURC) ReceiveWithAuthorization to custody, held until the raise ends. */
export interface HeldAuthorizationRecord {
  readonly asset: 'USDC' | 'EURC';
  readonly from: string;
  readonly to: string;
  readonly value: bigint;
  readonly validAfter: bigint;
  readonly validBefore: bigint;
  readonly nonce: string;
  readonly signature: string;
}

export interface Pledge {
  readonly pledgeId: string;
  readonly tokenId: string;
  readonly network: Network;
  readonly wallet: string;
  readonly usdAmount: bigint;
  readonly state: PledgeState;
  readonly authorization: HeldAuthorizationRecord;
  /** The $0.01 payment that placed it. */
  readonly paymentId: string | null;
  /** Its share of the raise's tokens, once FILLED. */
  readonly tokens: bigint;
  /** Why it was dropped (the authorization could not be used), or null. */
  readonly dropReason: string | null;
  /** What paid it back (a failed raise that had collected it), or null. */
  readonly payoutId: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** Ten seconds to seven days: short raises serve tests and demos. */
export const MIN_RAISE_SECONDS = 10;
export const MAX_RAISE_SECONDS = 7 * 24 * 3600;

export interface FairLaunchTerms {
  goalUsd: bigint;
  durationSeconds: number;
  maxPerWalletUsd: bigint | null;
}

/** The terms of a fair launch, checked: every problem at once (VALIDATION_ERROR, paths under `launch`). */
export function checkFairLaunchTerms(t: FairLaunchTerms, bounds: { minUsd: bigint; maxUsd: bigint }): FairLaunchTerms {
  const issues = [];
  if (!Number.isInteger(t.durationSeconds) || t.durationSeconds < MIN_RAISE_SECONDS || t.durationSeconds > MAX_RAISE_SECONDS) {
    issues.push({ path: 'launch.durationSeconds', message: `must be a whole number of seconds from ${MIN_RAISE_SECONDS} to ${MAX_RAISE_SECONDS} (7 days)` });
  }
  // The raise buys once with what it collects: the goal must be a buy the curve takes.
  if (t.goalUsd < bounds.minUsd || t.goalUsd > bounds.maxUsd) issues.push({ path: 'launch.goalUsd', message: 'must lie within the buy bounds' });
  if (t.maxPerWalletUsd !== null && t.maxPerWalletUsd < bounds.minUsd) issues.push({ path: 'launch.maxPerWalletUsd', message: 'must be at least the smallest buy' });
  if (issues.length > 0) throw new ValidationError(issues);
  return t;
}

/** A raise opened at `now`, ending `terms.durationSeconds` later (`endsAt`, computed by the caller: the domain reads no clock). */
export function newRaise(args: { tokenId: string; network: Network; terms: FairLaunchTerms; now: Date; endsAt: Date }): Raise {
  if (args.endsAt.getTime() - args.now.getTime() !== args.terms.durationSeconds * 1000) throw new InvariantViolation('a raise ends durationSeconds after it opens');
  return {
    tokenId: args.tokenId,
    network: args.network,
    state: 'RAISING',
    goalUsd: args.terms.goalUsd,
    maxPerWalletUsd: args.terms.maxPerWalletUsd,
    endsAt: args.endsAt,
    collectedUsd: 0n,
    tokensBought: 0n,
    remainderTokens: 0n,
    tradeId: null,
    failure: null,
    createdAt: args.now,
    updatedAt: args.now,
  };
}

export function transitionRaise(raise: Raise, to: RaiseState, now: Date, patch: Partial<Pick<Raise, 'collectedUsd' | 'tokensBought' | 'remainderTokens' | 'tradeId' | 'failure'>> = {}): Raise {
  if (!RAISE_TRANSITIONS[raise.state].includes(to)) throw new InvariantViolation(`raise ${raise.tokenId}: ${raise.state} → ${to} is not a transition`);
  return { ...raise, ...patch, state: to, updatedAt: now };
}

export function transitionPledge(pledge: Pledge, to: PledgeState, now: Date, patch: Partial<Pick<Pledge, 'tokens' | 'dropReason' | 'payoutId'>> = {}): Pledge {
  if (!PLEDGE_TRANSITIONS[pledge.state].includes(to)) throw new InvariantViolation(`pledge ${pledge.pledgeId}: ${pledge.state} → ${to} is not a transition`);
  return { ...pledge, ...patch, state: to, updatedAt: now };
}

/** A raise takes pledges while RAISING and before its end. */
export const raiseOpen = (raise: Raise, now: Date): boolean => raise.state === 'RAISING' && now < raise.endsAt;

/** The USD of the pledges that still count (not cancelled, not dropped, not released). */
export function pledgedUsd(pledges: readonly Pledge[]): bigint {
  return pledges.reduce((sum, p) => (p.state === 'PLEDGED' || p.state === 'COLLECTED' ? sum + p.usdAmount : sum), 0n);
}

/**
 * `tokens` shared among `amounts` in proportion, each share rounded down: share_i =
 * ⌊tokens · amount_i / Σ amounts⌋. The remainder (tokens − Σ shares, fewer than the number of
 * shares) is stated, not given to anyone: every share is bought at exactly one price.
 */
export function splitProRata(tokens: bigint, amounts: readonly bigint[]): { shares: bigint[]; remainder: bigint } {
  const total = amounts.reduce((a, b) => a + b, 0n);
  if (total <= 0n || amounts.some((a) => a <= 0n)) throw new InvariantViolation('a pro-rata split needs positive amounts');
  const shares = amounts.map((a) => (tokens * a) / total);
  return { shares, remainder: tokens - shares.reduce((a, b) => a + b, 0n) };
}

/** What a raise at its end does: fail without collecting, or collect the pledges that are usable. */
export function decideAtEnd(raise: Raise, usable: readonly Pledge[]): 'collect' | 'fail' {
  return pledgedUsd(usable) >= raise.goalUsd ? 'collect' : 'fail';
}

/** Once every pledge was collected or dropped: buy with what was collected, or pay it back. */
export function decideAfterCollecting(raise: Raise, pledges: readonly Pledge[]): 'fill' | 'refund' {
  const collected = pledges.filter((p) => p.state === 'COLLECTED').reduce((s, p) => s + p.usdAmount, 0n);
  return collected >= raise.goalUsd && collected > 0n ? 'fill' : 'refund';
}

/** A wallet's pledges in force, and whether `more` keeps it within the raise's cap. */
export function withinCap(raise: Raise, walletPledges: readonly Pledge[], more: bigint): { pledged: bigint; ok: boolean } {
  const pledged = pledgedUsd(walletPledges);
  return { pledged, ok: raise.maxPerWalletUsd === null || pledged + more <= raise.maxPerWalletUsd };
}
