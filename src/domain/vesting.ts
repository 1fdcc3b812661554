/**
 * A vested dev buy (docs/api.md "Fees and earnings", decision 0079): the tokens of a creator's
 * buy at creation stay in custody, locked; nothing vests before the cliff, then they vest
 * linearly over the duration. What vested is released — queued for delivery to the creator's
 * wallet — by a worker pass, each release a compare-and-set on the count of releases, so each
 * token is released once.
 */
import { InvariantViolation } from './errors.js';

export const VESTING_MAX_CLIFF_SECONDS = 365 * 24 * 3600;
export const VESTING_MAX_DURATION_SECONDS = 4 * 365 * 24 * 3600;

/**
 * Releases are spaced so a long schedule is not one transaction a pass: the next comes once 1 %
 * of the tokens vested more or a day passed, whichever is sooner — and the last at the end.
 */
export const VESTING_RELEASE_STEPS = 100n;
export const VESTING_MAX_RELEASE_INTERVAL_MS = 24n * 3600n * 1000n;

export interface VestingTerms {
  readonly cliffSeconds: number;
  readonly durationSeconds: number;
}

export interface DevVesting extends VestingTerms {
  /** The dev buy's tokens (1e-18 units). */
  readonly amount: bigint;
  /** Released so far: delivered, or queued for delivery. */
  readonly released: bigint;
  /** How many releases queued deliveries: the next release's compare-and-set. */
  readonly releases: number;
  /** When vesting started: the dev buy (the token's creation), in milliseconds since the epoch (the domain makes no Date). */
  readonly startsAtMs: number;
  /** When a worker pass looks at it next (milliseconds since the epoch); null once everything is released. */
  readonly nextReleaseAtMs: number | null;
}

export function newVesting(amount: bigint, terms: VestingTerms, startsAt: Date): DevVesting {
  if (amount <= 0n) throw new InvariantViolation('a vesting must lock tokens');
  const startsAtMs = startsAt.getTime();
  return { cliffSeconds: terms.cliffSeconds, durationSeconds: terms.durationSeconds, amount, released: 0n, releases: 0, startsAtMs, nextReleaseAtMs: cliffEndsAtMs({ ...terms, startsAtMs }) };
}

const msOf = (seconds: number) => BigInt(seconds) * 1000n;

export const cliffEndsAtMs = (v: VestingTerms & { startsAtMs: number }): number => v.startsAtMs + v.cliffSeconds * 1000;
export const vestingEndsAtMs = (v: VestingTerms & { startsAtMs: number }): number => v.startsAtMs + (v.cliffSeconds + v.durationSeconds) * 1000;

/** Tokens still locked: not released yet (vested ones included until a pass releases them). */
export const lockedOf = (v: DevVesting | null): bigint => (v ? v.amount - v.released : 0n);

/** What vested by `now`: nothing before the cliff, then linearly over the duration, rounded down. */
export function vestedAt(v: DevVesting, now: Date): bigint {
  const sinceCliff = BigInt(now.getTime() - cliffEndsAtMs(v));
  if (sinceCliff < 0n) return 0n;
  const duration = msOf(v.durationSeconds);
  if (sinceCliff >= duration) return v.amount;
  return (v.amount * sinceCliff) / duration;
}

/**
 * The release due at `now`: the vesting after it, and the tokens it releases (0: only when to look
 * next moved, e.g. at the cliff of a schedule that vests from there). Null when none is due.
 */
export function releaseAt(v: DevVesting, now: Date): { vesting: DevVesting; tokens: bigint } | null {
  if (v.nextReleaseAtMs === null || now.getTime() < v.nextReleaseAtMs) return null;
  const vested = vestedAt(v, now);
  const tokens = vested > v.released ? vested - v.released : 0n;
  const step = msOf(v.durationSeconds) / VESTING_RELEASE_STEPS;
  const interval = step < 1000n ? 1000n : step > VESTING_MAX_RELEASE_INTERVAL_MS ? VESTING_MAX_RELEASE_INTERVAL_MS : step;
  const next = vested === v.amount ? null : Math.min(now.getTime() + Number(interval), vestingEndsAtMs(v));
  return { vesting: { ...v, released: vested > v.released ? vested : v.released, releases: tokens > 0n ? v.releases + 1 : v.releases, nextReleaseAtMs: next }, tokens };
}

/**
 * A sale of `requested` tokens by `wallet`, which holds `heldOnChain` of them: the tokens still
 * locked that it may not sell instead (the creator's vested dev buy), or 0n when the sale is not
 * held up by a lock — a wallet short of tokens for another reason is refused by the check of its
 * balance, as before.
 */
export function lockedShortfall(token: { creator: string; vesting: DevVesting | null }, wallet: string, requested: bigint, heldOnChain: bigint): bigint {
  if (heldOnChain >= requested || wallet.toLowerCase() !== token.creator.toLowerCase()) return 0n;
  return lockedOf(token.vesting);
}
