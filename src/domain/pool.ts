/**
 * A graduated token's Uniswap v2 pool (docs/api.md "Graduation and the Uniswap v2 pool"): the pair's constant-product math exactly as
 * UniswapV2Library computes it (0.3 % fee as 997/1000, integer division), plus the service's
 * own fee on top, taken the same way as on the curve (from the USD in on buys, from the USD out
 * on sells, rounded up). Pure functions over bigint reserves in smallest units.
 */
import { ValidationError } from './errors.js';
import { feeOn } from './fees.js';
import type { CurveParams, CurveState } from './curve.js';
import { realUsdReserve } from './curve.js';

/** The pair's reserves, from the USD side (USDC units) and the token side (token units). */
export interface PoolReserves {
  readonly usd: bigint;
  readonly tokens: bigint;
}

/** UniswapV2Library.getAmountOut: what `amountIn` buys from a pool with these reserves. */
export function getAmountOut(amountIn: bigint, reserveIn: bigint, reserveOut: bigint): bigint {
  if (amountIn <= 0n) throw new RangeError('UniswapV2Library: INSUFFICIENT_INPUT_AMOUNT');
  if (reserveIn <= 0n || reserveOut <= 0n) throw new RangeError('UniswapV2Library: INSUFFICIENT_LIQUIDITY');
  const amountInWithFee = amountIn * 997n;
  return (amountInWithFee * reserveOut) / (reserveIn * 1000n + amountInWithFee);
}

/** UniswapV2Library.getAmountIn: the least input that yields `amountOut`. */
export function getAmountIn(amountOut: bigint, reserveIn: bigint, reserveOut: bigint): bigint {
  if (amountOut <= 0n) throw new RangeError('UniswapV2Library: INSUFFICIENT_OUTPUT_AMOUNT');
  if (reserveIn <= 0n || reserveOut <= 0n || amountOut >= reserveOut) throw new RangeError('UniswapV2Library: INSUFFICIENT_LIQUIDITY');
  return (reserveIn * amountOut * 1000n) / ((reserveOut - amountOut) * 997n) + 1n;
}

/** What graduation puts in the pool: the supply the curve never sold, and its real USD less the fee. */
export interface PoolSeed {
  readonly tokens: bigint;
  readonly usd: bigint;
  /** Kept by the treasury. */
  readonly feeUsd: bigint;
}

export function poolSeed(p: CurveParams, s: CurveState, graduationFeeUsd: bigint): PoolSeed {
  const real = realUsdReserve(p, s);
  const feeUsd = graduationFeeUsd < real ? graduationFeeUsd : real;
  return { tokens: p.totalSupply - p.curveSupply, usd: real - feeUsd, feeUsd };
}

export interface PoolBuy {
  readonly grossUsd: bigint;
  readonly feeUsd: bigint;
  /** What is swapped: gross less the service fee. */
  readonly netUsd: bigint;
  readonly tokensOut: bigint;
  readonly after: PoolReserves;
}

export interface PoolSell {
  readonly tokensIn: bigint;
  /** What the swap yields. */
  readonly grossUsd: bigint;
  readonly feeUsd: bigint;
  readonly usdOut: bigint;
  readonly after: PoolReserves;
}

/** A buy through the pool spending exactly `grossUsd`, the service fee included. */
export function poolBuyWithUsd(r: PoolReserves, grossUsd: bigint, feeBps: bigint): PoolBuy {
  if (grossUsd <= 0n) throw ValidationError.of('usdAmount', 'must be greater than zero');
  const feeUsd = feeOn(grossUsd, feeBps);
  const netUsd = grossUsd - feeUsd;
  const tokensOut = netUsd > 0n ? getAmountOut(netUsd, r.usd, r.tokens) : 0n;
  if (tokensOut === 0n) throw ValidationError.of('usdAmount', 'is too small to buy any token at the current price');
  return { grossUsd, feeUsd, netUsd, tokensOut, after: { usd: r.usd + netUsd, tokens: r.tokens - tokensOut } };
}

/** The least gross USD whose buy yields at least `tokens` (rounded up through both fees). */
export function poolCostForTokens(r: PoolReserves, tokens: bigint, feeBps: bigint): bigint {
  if (tokens <= 0n) throw ValidationError.of('tokens', 'must be greater than zero');
  if (tokens >= r.tokens) throw ValidationError.of('tokens', 'is more than the pool holds');
  const net = getAmountIn(tokens, r.usd, r.tokens);
  // Smallest gross u with u − ceil(u·bps/N) ≥ net.
  let gross = (net * 10_000n + (10_000n - feeBps) - 1n) / (10_000n - feeBps);
  while (gross - feeOn(gross, feeBps) < net) gross += 1n;
  return gross;
}

/** A sell of `tokens` through the pool; the service fee comes out of the USD the swap yields. */
export function poolSell(r: PoolReserves, tokens: bigint, feeBps: bigint): PoolSell {
  if (tokens <= 0n) throw ValidationError.of('tokens', 'must be greater than zero');
  const grossUsd = getAmountOut(tokens, r.tokens, r.usd);
  const feeUsd = feeOn(grossUsd, feeBps);
  if (grossUsd - feeUsd === 0n) throw ValidationError.of('tokens', 'is too small to sell for any USDC after the fee at the current price');
  return { tokensIn: tokens, grossUsd, feeUsd, usdOut: grossUsd - feeUsd, after: { usd: r.usd - grossUsd, tokens: r.tokens + tokens } };
}

/** The least output a caller accepts: `amount` less `slippageBps`, rounded down. */
export function minOut(amount: bigint, slippageBps: bigint): bigint {
  return (amount * (10_000n - slippageBps)) / 10_000n;
}

/** ⌊√n⌋ (OpenZeppelin's Math.sqrt rounds down too). */
export function isqrt(n: bigint): bigint {
  if (n < 0n) throw new RangeError('isqrt of a negative number');
  if (n < 2n) return n;
  let x = n;
  let y = (x + 1n) / 2n;
  while (y < x) [x, y] = [y, (y + n / y) / 2n];
  return x;
}

/** What LaunchFactory.seedPool does to a pair, step by step (the contract mirrors this exactly). */
export interface PoolSeedPlan {
  /** The swap that moves the pair to the target price first, or null when none is needed or possible. */
  readonly swap: { readonly side: 'sell-tokens' | 'buy-tokens'; readonly amountIn: bigint; readonly amountOut: bigint } | null;
  /** What is then added to the pair. */
  readonly deposit: PoolReserves;
  /** Launched tokens the pool did not need: locked with the LP tokens (burned). */
  readonly tokensLocked: bigint;
  /** USD the pool did not need: back to custody. */
  readonly usdReturned: bigint;
  /** The pair's reserves at the end. */
  readonly after: PoolReserves;
}

/**
 * Seeding a graduation pool whatever an outsider put in the pair first (decision 0023): the pair's
 * reserves `before` (after `sync`, so anything sent to it counts), the `target` amounts whose
 * ratio is the curve's final price.
 *
 * 1. When both reserves are non-zero, Uniswap's profit-maximizing trade
 *    (UniswapV2LiquidityMathLibrary.computeProfitMaximizingTrade) with the true ratio
 *    target.tokens : target.usd moves the pair to that price, its input capped at what we hold;
 *    a swap that would give nothing (dust) is skipped. An outsider's liquidity is arbitraged by
 *    it, so their position loses value rather than gains ours.
 * 2. Then all of our tokens are added with the USD their price needs beside the reserves
 *    already there — or, when that is more USD than we hold, all of our USD with the tokens its
 *    price needs (rounded down): the pair ends at the target price to the rounding of its larger
 *    side.
 */
export function planPoolSeed(before: PoolReserves, target: PoolReserves): PoolSeedPlan {
  if (target.tokens <= 0n || target.usd <= 0n) throw new RangeError('empty seed');
  let { tokens: rt, usd: ru } = before;
  let held = { tokens: target.tokens, usd: target.usd };
  let swap: PoolSeedPlan['swap'] = null;
  if (rt > 0n && ru > 0n) {
    const sellTokens = (rt * target.usd) / ru < target.tokens;
    const left = isqrt((rt * ru * 1000n * (sellTokens ? target.tokens : target.usd)) / ((sellTokens ? target.usd : target.tokens) * 997n));
    const right = ((sellTokens ? rt : ru) * 1000n) / 997n;
    if (left > right) {
      const cap = sellTokens ? held.tokens : held.usd;
      const amountIn = left - right < cap ? left - right : cap;
      const [rIn, rOut] = sellTokens ? [rt, ru] : [ru, rt];
      const amountOut = (amountIn * 997n * rOut) / (rIn * 1000n + amountIn * 997n);
      if (amountOut > 0n) {
        swap = { side: sellTokens ? 'sell-tokens' : 'buy-tokens', amountIn, amountOut };
        if (sellTokens) {
          held = { tokens: held.tokens - amountIn, usd: held.usd + amountOut };
          [rt, ru] = [rt + amountIn, ru - amountOut];
        } else {
          held = { tokens: held.tokens + amountOut, usd: held.usd - amountIn };
          [rt, ru] = [rt - amountOut, ru + amountIn];
        }
      }
    }
  }
  // All our tokens, and the USD their price needs — unless that is more USD than we hold: then
  // all our USD, and the tokens its price needs.
  let x: bigint;
  let y: bigint;
  const wantUsd = (target.usd * (rt + held.tokens)) / target.tokens;
  if (wantUsd <= ru + held.usd) {
    x = held.tokens;
    y = wantUsd > ru ? wantUsd - ru : 0n;
  } else {
    y = held.usd;
    const wantTokens = (target.tokens * (ru + y)) / target.usd;
    x = wantTokens > rt ? (wantTokens - rt < held.tokens ? wantTokens - rt : held.tokens) : 0n;
  }
  return {
    swap,
    deposit: { tokens: x, usd: y },
    tokensLocked: held.tokens - x,
    usdReturned: held.usd - y,
    after: { tokens: rt + x, usd: ru + y },
  };
}
