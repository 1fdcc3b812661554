import { ceilDiv } from './money.js';

export const BPS_DENOMINATOR = 10_000n;

/** A fee of `bps` basis points on `amount`, rounded up: rounding always favours the curve. */
export function feeOn(amount: bigint, bps: bigint): bigint {
  if (bps < 0n || bps >= BPS_DENOMINATOR) throw new RangeError('fee bps must be in [0, 10000)');
  return ceilDiv(amount * bps, BPS_DENOMINATOR);
}

/**
 * Who shares a trading fee with the treasury (docs/api.md "Fees and earnings"): `cashback` is the
 * trader itself, earning the creator's share of its own trade on a cashback token.
 */
export type FeeRole = 'creator' | 'cashback' | 'platform_referrer' | 'trade_referrer';

/** Who earns a token's creator share: its creator's wallets (`creator`), or each trade's own trader (`cashback`). */
export type FeeMode = 'creator' | 'cashback';

/** One wallet's part of a token's creator share, in basis points of that share. */
export interface CreatorSplit {
  readonly wallet: string;
  readonly bps: number;
}

/** At most this many wallets share a creator share (docs/api.md "Fees and earnings"). */
export const MAX_CREATOR_SPLITS = 10;

/** Each role's part of the fee, in basis points of the fee (not of the trade). */
export interface FeeShareRates {
  readonly creatorBps: bigint;
  readonly platformReferrerBps: bigint;
  readonly tradeReferrerBps: bigint;
}

export interface FeeParties {
  /** Who pays the trade. */
  readonly payer: string;
  /** The token's creator: the earner of the creator share unless `creatorSplits` or `feeMode` say otherwise. */
  readonly creator: string;
  /** The wallets the creator share is split among, in order (the first takes the remainder); null or absent: the creator alone. */
  readonly creatorSplits?: readonly CreatorSplit[] | null;
  /** `cashback`: the creator share goes to the payer (role `cashback`). Default `creator`. */
  readonly feeMode?: FeeMode;
  /** Named at creation; null when none was. */
  readonly platformReferrer: string | null;
  /** Named in this trade; null when none was. */
  readonly tradeReferrer: string | null;
}

export interface FeeShare {
  readonly role: FeeRole;
  readonly wallet: string;
  readonly amount: bigint;
}

export interface FeeSplit {
  /** The earners' shares, each > 0, in role order. */
  readonly shares: readonly FeeShare[];
  /** What the treasury keeps: the fee less the shares, so shares + treasury = fee to the unit. */
  readonly treasury: bigint;
}

export function checkFeeShareRates(r: FeeShareRates): void {
  for (const bps of [r.creatorBps, r.platformReferrerBps, r.tradeReferrerBps]) {
    if (bps < 0n || bps > BPS_DENOMINATOR) throw new RangeError('fee share bps must be in [0, 10000]');
  }
  if (r.creatorBps + r.platformReferrerBps + r.tradeReferrerBps > BPS_DENOMINATOR) throw new RangeError('fee shares add up to more than the fee');
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * Splits a trading fee exactly: each share is rounded down, the treasury takes the remainder. A
 * referrer who is the payer earns nothing on their own trade (no self-rebate); a missing referrer's
 * share stays with the treasury. The creator share goes to the payer on a cashback token, else is
 * divided among the creator's splits (`splitCreatorShare`): its parts add up to it to the unit.
 */
export function splitFee(fee: bigint, rates: FeeShareRates, parties: FeeParties): FeeSplit {
  if (fee < 0n) throw new RangeError('a fee is never negative');
  const referrer = (wallet: string | null) => (wallet !== null && !same(wallet, parties.payer) ? wallet : null);
  const creatorShare = (fee * rates.creatorBps) / BPS_DENOMINATOR;
  const shares: FeeShare[] =
    parties.feeMode === 'cashback'
      ? [{ role: 'cashback', wallet: parties.payer, amount: creatorShare }]
      : splitCreatorShare(creatorShare, parties.creatorSplits ?? [{ wallet: parties.creator, bps: 10_000 }]).map((p) => ({ role: 'creator' as const, ...p }));
  const referrers: [FeeRole, string | null, bigint][] = [
    ['platform_referrer', referrer(parties.platformReferrer), rates.platformReferrerBps],
    ['trade_referrer', referrer(parties.tradeReferrer), rates.tradeReferrerBps],
  ];
  for (const [role, wallet, bps] of referrers) {
    if (wallet !== null) shares.push({ role, wallet, amount: (fee * bps) / BPS_DENOMINATOR });
  }
  const earned = shares.filter((s) => s.amount > 0n);
  return { shares: earned, treasury: fee - earned.reduce((sum, s) => sum + s.amount, 0n) };
}

/**
 * A creator share divided among its splits: `floor(share × bps / 10000)` each, the remainder to
 * the first, so the parts add up to the share to the unit (a part may be 0).
 */
export function splitCreatorShare(share: bigint, splits: readonly CreatorSplit[]): { wallet: string; amount: bigint }[] {
  if (splits.length === 0) throw new RangeError('a creator share needs a wallet');
  const parts = splits.map((s) => ({ wallet: s.wallet, amount: (share * BigInt(s.bps)) / BPS_DENOMINATOR }));
  parts[0]!.amount += share - parts.reduce((sum, p) => sum + p.amount, 0n);
  return parts;
}

/**
 * A creator's splits as given (docs/api.md "Fees and earnings"): 1 to 10 wallets, each at least
 * 1 bps, summing to 10000, no wallet twice. Returns the problem, or null when they are valid.
 */
export function creatorSplitsProblem(splits: readonly CreatorSplit[]): { path: string; message: string } | null {
  if (splits.length < 1 || splits.length > MAX_CREATOR_SPLITS) return { path: 'creatorSplits', message: `must name 1 to ${MAX_CREATOR_SPLITS} wallets` };
  const seen = new Set<string>();
  for (const [i, s] of splits.entries()) {
    if (!Number.isInteger(s.bps) || s.bps < 1 || s.bps > 10_000) return { path: `creatorSplits.${i}.bps`, message: 'must be a whole number of basis points from 1 to 10000' };
    if (seen.has(s.wallet.toLowerCase())) return { path: `creatorSplits.${i}.wallet`, message: `names ${s.wallet} a second time: each wallet once` };
    seen.add(s.wallet.toLowerCase());
  }
  const sum = splits.reduce((total, s) => total + s.bps, 0);
  if (sum !== 10_000) return { path: 'creatorSplits', message: `bps must add up to 10000 (the whole creator share); they add up to ${sum}` };
  return null;
}

/** The anti-snipe launch fee: from `startBps` at creation, falling linearly to `baseBps` over `decayMs`. */
export interface LaunchFee {
  readonly startBps: bigint;
  readonly baseBps: bigint;
  readonly decayMs: bigint;
}

/**
 * The fee in force `elapsedMs` after a token's creation, rounded up to a whole basis point; the
 * base fee once the decay is over (or when there is none: decayMs 0, or a start at the base).
 */
export function feeBpsAt(launch: LaunchFee, elapsedMs: bigint): bigint {
  if (launch.decayMs <= 0n || launch.startBps <= launch.baseBps || elapsedMs >= launch.decayMs) return launch.baseBps;
  const remaining = launch.decayMs - (elapsedMs < 0n ? 0n : elapsedMs);
  return launch.baseBps + ceilDiv((launch.startBps - launch.baseBps) * remaining, launch.decayMs);
}
