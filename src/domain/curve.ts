/**
 * The bonding curve of docs/api.md "Curve and prices": constant product x·y = k over virtual reserves, in smallest
 * units (x in 1e-6 USDC, y in 1e-18 tokens). Every rounding favours the curve, so k never
 * decreases. Pure functions over immutable values.
 */
import { CurveCapacityExceeded, InvariantViolation, ValidationError } from './errors.js';
import { feeOn, BPS_DENOMINATOR } from './fees.js';
import { ceilDiv, floorDiv, formatRatio, formatTokens, formatUsd, TOKEN_UNIT, USDC_UNIT } from './money.js';

/** Fixed per token at creation. */
export interface CurveParams {
  readonly totalSupply: bigint;
  readonly curveSupply: bigint;
  readonly initialVirtualUsd: bigint;
  readonly initialVirtualTokens: bigint;
  readonly feeBps: bigint;
}

export interface CurveState {
  /** x: virtual USD reserve. */
  readonly virtualUsd: bigint;
  /** y: virtual token reserve. */
  readonly virtualTokens: bigint;
  readonly tokensSold: bigint;
}

export const DEFAULT_CURVE_PARAMS: CurveParams = Object.freeze({
  totalSupply: 1_000_000_000n * TOKEN_UNIT,
  curveSupply: 793_100_000n * TOKEN_UNIT,
  initialVirtualUsd: 6_000n * USDC_UNIT,
  initialVirtualTokens: 1_073_000_000n * TOKEN_UNIT,
  feeBps: 100n,
});

export function checkCurveParams(p: CurveParams): CurveParams {
  const problems: string[] = [];
  if (p.totalSupply <= 0n) problems.push('totalSupply must be positive');
  if (p.curveSupply <= 0n || p.curveSupply > p.totalSupply) problems.push('curveSupply must be in (0, totalSupply]');
  if (p.initialVirtualUsd <= 0n) problems.push('initialVirtualUsd must be positive');
  if (p.initialVirtualTokens <= p.curveSupply) problems.push('initialVirtualTokens must exceed curveSupply');
  if (p.feeBps < 0n || p.feeBps >= BPS_DENOMINATOR) problems.push('feeBps must be in [0, 10000)');
  if (problems.length > 0) throw new RangeError(`invalid curve parameters: ${problems.join('; ')}`);
  return Object.freeze({ ...p });
}

export function initialCurveState(p: CurveParams): CurveState {
  return { virtualUsd: p.initialVirtualUsd, virtualTokens: p.initialVirtualTokens, tokensSold: 0n };
}

export const remainingSupply = (p: CurveParams, s: CurveState): bigint => p.curveSupply - s.tokensSold;
export const isSoldOut = (p: CurveParams, s: CurveState): boolean => s.tokensSold >= p.curveSupply;
export const invariantK = (s: CurveState): bigint => s.virtualUsd * s.virtualTokens;
/** USD actually held by the curve (what buyers put in, less what sellers took out). */
export const realUsdReserve = (p: CurveParams, s: CurveState): bigint => s.virtualUsd - p.initialVirtualUsd;

export interface BuyQuote {
  readonly grossUsd: bigint;
  readonly feeUsd: bigint;
  readonly netUsd: bigint;
  readonly tokensOut: bigint;
  readonly after: CurveState;
  /** This buy sells the last curve token. */
  readonly graduates: boolean;
}

export interface SellQuote {
  readonly tokensIn: bigint;
  readonly grossUsd: bigint;
  readonly feeUsd: bigint;
  readonly usdOut: bigint;
  readonly after: CurveState;
}

/**
 * Net USD the curve must receive so that a buy yields at least `tokens`:
 * floor(y·d/(x+d)) ≥ t  ⇔  d ≥ t·x/(y−t).
 */
function netCostFor(s: CurveState, tokens: bigint): bigint {
  return ceilDiv(tokens * s.virtualUsd, s.virtualTokens - tokens);
}

/** Smallest gross u with u − ceil(u·bps/N) ≥ d, i.e. floor(u·(N−bps)/N) ≥ d. */
function grossForNet(net: bigint, feeBps: bigint): bigint {
  return ceilDiv(net * BPS_DENOMINATOR, BPS_DENOMINATOR - feeBps);
}

/**
 * The smallest gross USD whose buy yields at least `tokens` at the current curve (fee
 * included, rounded up to 1e-6 USDC). `tokens` must not exceed the remaining supply.
 */
export function costForTokens(p: CurveParams, s: CurveState, tokens: bigint): bigint {
  if (tokens <= 0n) throw ValidationError.of('tokens', 'must be greater than zero');
  const remaining = remainingSupply(p, s);
  if (tokens > remaining) {
    throw new CurveCapacityExceeded(formatUsd(maxBuyUsd(p, s)), formatTokens(remaining));
  }
  return grossForNet(netCostFor(s, tokens), p.feeBps);
}

/** What the rest of the curve costs (0 when sold out). */
export function maxBuyUsd(p: CurveParams, s: CurveState): bigint {
  const remaining = remainingSupply(p, s);
  return remaining > 0n ? grossForNet(netCostFor(s, remaining), p.feeBps) : 0n;
}

/** A buy spending exactly `grossUsd`, fee included (docs/api.md "Curve and prices"). */
export function quoteBuyWithUsd(p: CurveParams, s: CurveState, grossUsd: bigint): BuyQuote {
  if (grossUsd <= 0n) throw ValidationError.of('usdAmount', 'must be greater than zero');
  const remaining = remainingSupply(p, s);
  const feeUsd = feeOn(grossUsd, p.feeBps);
  const netUsd = grossUsd - feeUsd;
  let tokensOut = floorDiv(s.virtualTokens * netUsd, s.virtualUsd + netUsd);
  if (tokensOut > remaining) {
    const maxUsd = maxBuyUsd(p, s);
    if (grossUsd > maxUsd) throw new CurveCapacityExceeded(formatUsd(maxUsd), formatTokens(remaining));
    // Paying exactly the rounded-up price of the rest may round to a hair more than the rest:
    // the buyer gets the rest, the curve keeps the rounding.
    tokensOut = remaining;
  }
  if (tokensOut === 0n) {
    throw ValidationError.of('usdAmount', 'is too small to buy any token at the current price');
  }
  const after: CurveState = {
    virtualUsd: s.virtualUsd + netUsd,
    virtualTokens: s.virtualTokens - tokensOut,
    tokensSold: s.tokensSold + tokensOut,
  };
  assertKNotDecreased(s, after);
  return { grossUsd, feeUsd, netUsd, tokensOut, after, graduates: after.tokensSold === p.curveSupply };
}

/** A buy of at least `tokens`: the exact inverse, paying the rounded-up cost. */
export function quoteBuyForTokens(p: CurveParams, s: CurveState, tokens: bigint): BuyQuote {
  return quoteBuyWithUsd(p, s, costForTokens(p, s, tokens));
}

/** A sell of `tokens` back to the curve; the fee comes out of the USD paid out. */
export function quoteSell(p: CurveParams, s: CurveState, tokens: bigint): SellQuote {
  if (tokens <= 0n) throw ValidationError.of('tokens', 'must be greater than zero');
  if (tokens > s.tokensSold) {
    throw new InvariantViolation('cannot sell more tokens than the curve has sold');
  }
  const grossUsd = floorDiv(s.virtualUsd * tokens, s.virtualTokens + tokens);
  const feeUsd = feeOn(grossUsd, p.feeBps);
  // A sell whose proceeds after the fee round to nothing would owe the seller nothing: refuse it.
  if (grossUsd - feeUsd === 0n) {
    throw ValidationError.of('tokens', 'is too small to sell for any USDC after the fee at the current price');
  }
  const after: CurveState = {
    virtualUsd: s.virtualUsd - grossUsd,
    virtualTokens: s.virtualTokens + tokens,
    tokensSold: s.tokensSold - tokens,
  };
  assertKNotDecreased(s, after);
  return { tokensIn: tokens, grossUsd, feeUsd, usdOut: grossUsd - feeUsd, after };
}

function assertKNotDecreased(before: CurveState, after: CurveState): void {
  if (invariantK(after) < invariantK(before)) throw new InvariantViolation('curve invariant k decreased');
}

/** Spot price x / y in USD per whole token, 18 decimals, rounded down. */
export function spotPriceUsd(s: CurveState): string {
  return formatRatio(s.virtualUsd * TOKEN_UNIT, s.virtualTokens * USDC_UNIT, 18);
}

/** Spot price × total supply, in USDC units (rounded down). */
export function marketCapUsd(p: CurveParams, s: CurveState): bigint {
  return floorDiv(p.totalSupply * s.virtualUsd, s.virtualTokens);
}

/** Value of `tokens` at the spot price, in USDC units (rounded down). */
export function valueAtSpot(s: CurveState, tokens: bigint): bigint {
  return floorDiv(tokens * s.virtualUsd, s.virtualTokens);
}

/** Fraction of the curve supply sold, four decimals ("0.4213"). */
export function progress(p: CurveParams, s: CurveState): string {
  return formatRatio(s.tokensSold, p.curveSupply, 4);
}

/** Average price of a trade in USD per whole token, 18 decimals. */
export function averagePriceUsd(usd: bigint, tokens: bigint): string {
  return tokens === 0n ? '0' : formatRatio(usd * TOKEN_UNIT, tokens * USDC_UNIT, 18);
}
