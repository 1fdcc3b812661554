import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CURVE_PARAMS, initialCurveState, quoteBuyWithUsd } from '../../src/domain/curve.js';
import { getAmountIn, getAmountOut, poolBuyWithUsd, poolCostForTokens, poolSeed, poolSell } from '../../src/domain/pool.js';

const USD = 10n ** 6n;
const T = 10n ** 18n;

describe('Uniswap v2 pool math', () => {
  it('getAmountOut is UniswapV2Library’s: 997/1000 on the input, floor', () => {
    // 1000 in against 1e6/1e6: 997·1e6·1000 / (1e6·1000 + 997·1000)
    expect(getAmountOut(1000n, 1_000_000n, 1_000_000n)).toBe((997n * 1000n * 1_000_000n) / (1_000_000n * 1000n + 997n * 1000n));
    expect(getAmountOut(1000n, 1_000_000n, 1_000_000n)).toBe(996n);
    expect(() => getAmountOut(0n, 1n, 1n)).toThrow(/INSUFFICIENT_INPUT_AMOUNT/);
    expect(() => getAmountOut(1n, 0n, 1n)).toThrow(/INSUFFICIENT_LIQUIDITY/);
  });

  it('getAmountIn is the least input whose getAmountOut reaches the output', () => {
    fc.assert(
      fc.property(fc.bigInt(1n, 10n ** 30n), fc.bigInt(1n, 10n ** 30n), fc.bigInt(1n, 10n ** 20n), (rIn, rOut, out) => {
        fc.pre(out < rOut);
        const needed = getAmountIn(out, rIn, rOut);
        expect(getAmountOut(needed, rIn, rOut)).toBeGreaterThanOrEqual(out);
        if (needed > 1n) expect(getAmountOut(needed - 1n, rIn, rOut)).toBeLessThanOrEqual(out);
      }),
    );
  });

  it('a buy takes the service fee first and never lets k shrink; a cost buys at least its tokens', () => {
    fc.assert(
      fc.property(fc.bigInt(1n * USD, 100_000n * USD), fc.bigInt(1n * USD, 10_000n * USD), (reserveUsd, gross) => {
        const r = { usd: reserveUsd, tokens: 206_900_000n * T };
        const buy = poolBuyWithUsd(r, gross, 100n);
        expect(buy.feeUsd).toBe((gross * 100n + 9_999n) / 10_000n);
        expect(buy.after.usd * buy.after.tokens).toBeGreaterThanOrEqual(r.usd * r.tokens);
        const cost = poolCostForTokens(r, buy.tokensOut, 100n);
        expect(cost).toBeLessThanOrEqual(gross);
        expect(poolBuyWithUsd(r, cost, 100n).tokensOut).toBeGreaterThanOrEqual(buy.tokensOut);
      }),
    );
  });

  it('a sell pays the swap’s output less the service fee', () => {
    const r = { usd: 80_000n * USD, tokens: 200_000_000n * T };
    const sell = poolSell(r, 1_000_000n * T, 100n);
    expect(sell.grossUsd).toBe(getAmountOut(1_000_000n * T, r.tokens, r.usd));
    expect(sell.usdOut).toBe(sell.grossUsd - (sell.grossUsd * 100n + 9_999n) / 10_000n);
  });

  it('the seed is the unsold supply and the real USD less the graduation fee (never below zero)', () => {
    const p = DEFAULT_CURVE_PARAMS;
    const s = quoteBuyWithUsd(p, initialCurveState(p), 1_000n * USD).after;
    const real = s.virtualUsd - p.initialVirtualUsd;
    expect(poolSeed(p, s, 0n)).toEqual({ tokens: 206_900_000n * T, usd: real, feeUsd: 0n });
    expect(poolSeed(p, s, 5n * USD)).toEqual({ tokens: 206_900_000n * T, usd: real - 5n * USD, feeUsd: 5n * USD });
    expect(poolSeed(p, s, real + 1n).usd).toBe(0n);
  });
});
