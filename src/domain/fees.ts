import { ceilDiv } from './money.js';

export const BPS_DENOMINATOR = 10_000n;

/** A fee of `bps` basis points on `amount`, rounded up: rounding always favours the curve. */
export function feeOn(amount: bigint, bps: bigint): bigint {
  if (bps < 0n || bps >= BPS_DENOMINATOR) throw new RangeError('fee bps must be in [0, 10000)');
  return ceilDiv(amount * bps, BPS_DENOMINATOR);
}

/** Who shares a trading fee with the treasury (docs/api.md "Fees and earnings"). */
export type FeeRole = 'creator' | 'platform_referrer' | 'trade_referrer';

/** Each role's part of the fee, in basis points of the fee (not of the trade). */
export interface FeeShareRates {
  readonly creatorBps: bigint;
  readonly platformReferrerBps: bigint;
  readonly tradeReferrerBps: bigint;
}

export interface FeeParties {
  /** Who pays the trade. */
  readonly payer: string;
  /** The token's creator: always an earner. */
  readonly creator: string;
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
 * share stays with the treasury.
 */
export function splitFee(fee: bigint, rates: FeeShareRates, parties: FeeParties): FeeSplit {
  if (fee < 0n) throw new RangeError('a fee is never negative');
  const referrer = (wallet: string | null) => (wallet !== null && !same(wallet, parties.payer) ? wallet : null);
  const candidates: [FeeRole, string | null, bigint][] = [
    ['creator', parties.creator, rates.creatorBps],
    ['platform_referrer', referrer(parties.platformReferrer), rates.platformReferrerBps],
    ['trade_referrer', referrer(parties.tradeReferrer), rates.tradeReferrerBps],
  ];
  const shares: FeeShare[] = [];
  for (const [role, wallet, bps] of candidates) {
    const amount = (fee * bps) / BPS_DENOMINATOR;
    if (wallet !== null && amount > 0n) shares.push({ role, wallet, amount });
  }
  return { shares, treasury: fee - shares.reduce((sum, s) => sum + s.amount, 0n) };
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
