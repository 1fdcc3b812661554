/**
 * A vested dev buy (docs/api.md "Fees and earnings", decision 0079): the tokens of a creator's
 * buy at creation stay in custody, locked; nothing vests before the cliff, then they vest
 * linearly over the duration. What vested is released — queued for delivery to the creator's
 * wallet — by a worker pass, each release a compare-and-set on the count of releases, so each
 * token is released once.
 */
import { InvariantViolation, TokensLocked } from './errors.js';
import { formatTokens } from './money.js';

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
  /** When vesting started: the dev buy (the token's creation). */
  readonly startsAt: Date;
  /** When a worker pass looks at it next; null once everything is released. */
  readonly nextReleaseAt: Date | null;
}

export function newVesting(amount: bigint, terms: VestingTerms, startsAt: Date): DevVesting {
  if (amount <= 0n) throw new InvariantViolation('a vesting must lock tokens');
  return { ...terms, amount, released: 0n, releases: 0, startsAt, nextReleaseAt: cliffEndsAt({ ...terms, startsAt }) };
}

const msOf = (seconds: number) => BigInt(seconds) * 1000n;

export const cliffEndsAt = (v: VestingTerms & { startsAt: Date }): Date => new Date(v.startsAt.getTime() + v.cliffSeconds * 1000);
export const vestingEndsAt = (v: VestingTerms & { startsAt: Date }): Date => new Date(v.startsAt.getTime() + (v.cliffSeconds + v.durationSeconds) * 1000);

/** Tokens still locked: not released yet (vested ones included until a pass releases them). */
export const lockedOf = (v: DevVesting | null): bigint => (v ? v.amount - v.released : 0n);

/** What vested by `now`: nothing before the cliff, then linearly over the duration, rounded down. */
export function vestedAt(v: DevVesting, now: Date): bigint {
  const sinceCliff = BigInt(now.getTime() - cliffEndsAt(v).getTime());
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
  if (v.nextReleaseAt === null || now < v.nextReleaseAt) return null;
  const vested = vestedAt(v, now);
  const tokens = vested > v.released ? vested - v.released : 0n;
  const step = msOf(v.durationSeconds) / VESTING_RELEASE_STEPS;
  const interval = step < 1000n ? 1000n : step > VESTING_MAX_RELEASE_INTERVAL_MS ? VESTING_MAX_RELEASE_INTERVAL_MS : step;
  const end = vestingEndsAt(v).getTime();
  const next = vested === v.amount ? null : new Date(Math.min(now.getTime() + Number(interval), end));
  return { vesting: { ...v, released: vested > v.released ? vested : v.released, releases: tokens > 0n ? v.releases + 1 : v.releases, nextReleaseAt: next }, tokens };
}

/**
 * A sale of `requested` tokens by `wallet`, which holds `heldOnChain` of them: refused with
 * TOKENS_LOCKED when it holds too few because some of its tokens are still locked (the creator's
 * vested dev buy). Nothing is said otherwise: a wallet short of tokens for another reason is
 * refused by the check of its balance, as before.
 */
export function refuseLockedSale(token: { tokenId: string; creator: string; vesting: DevVesting | null }, wallet: string, requested: bigint, heldOnChain: bigint): void {
  if (heldOnChain >= requested || wallet.toLowerCase() !== token.creator.toLowerCase()) return;
  const locked = lockedOf(token.vesting);
  if (locked === 0n) return;
  throw new TokensLocked({
    tokenId: token.tokenId,
    wallet,
    requested: formatTokens(requested),
    available: formatTokens(heldOnChain),
    locked: formatTokens(locked),
    nextReleaseAt: token.vesting?.nextReleaseAt?.toISOString() ?? null,
  });
}
