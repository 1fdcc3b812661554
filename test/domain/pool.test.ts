import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CURVE_PARAMS, initialCurveState, quoteBuyWithUsd } from '../../src/domain/curve.js';
import { getAmountIn, getAmountOut, planPoolSeed, poolBuyWithUsd, poolCostForTokens, poolSeed, poolSell } from '../../src/domain/pool.js';

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

describe('seeding a graduation pool whatever is in the pair (planPoolSeed, mirrored by LaunchFactory.seedPool)', () => {
  const target = { tokens: 206_900_000n * T, usd: 17_172_810_000n };
  const offBy = (r: { tokens: bigint; usd: bigint }) => {
    // |price − target price| relative to the target, in parts per billion.
    const d = r.usd * target.tokens - target.usd * r.tokens;
    return ((d < 0n ? -d : d) * 1_000_000_000n) / (target.usd * r.tokens);
  };

  it('an empty pair gets exactly the target amounts', () => {
    const plan = planPoolSeed({ tokens: 0n, usd: 0n }, target);
    expect(plan).toEqual({ swap: null, deposit: target, tokensLocked: 0n, usdReturned: 0n, after: target });
  });

  it('never spends more than it holds, and every unit is deposited, locked or returned', () => {
    fc.assert(
      fc.property(fc.bigInt(0n, 2n ** 112n - 1n), fc.bigInt(0n, 2n ** 112n - 1n), fc.bigInt(1n, 10n ** 28n), fc.bigInt(1n, 10n ** 13n), (rt, ru, tokens, usd) => {
        const plan = planPoolSeed({ tokens: rt, usd: ru }, { tokens, usd });
        const spent = plan.swap ? plan.swap.amountIn : 0n;
        const got = plan.swap ? plan.swap.amountOut : 0n;
        const [inTokens, inUsd] = plan.swap?.side === 'sell-tokens' ? [spent, -got] : [-got, spent];
        expect(plan.deposit.tokens).toBeGreaterThanOrEqual(0n);
        expect(plan.deposit.usd).toBeGreaterThanOrEqual(0n);
        expect(plan.tokensLocked).toBeGreaterThanOrEqual(0n);
        expect(plan.usdReturned).toBeGreaterThanOrEqual(0n);
        expect(plan.deposit.tokens + plan.tokensLocked + inTokens).toBe(tokens);
        expect(plan.deposit.usd + plan.usdReturned + inUsd).toBe(usd);
      }),
    );
  });

  it('dust made reserves (sync) or an outsider’s liquidity at any price up to a tenth of ours ends at the target price', () => {
    fc.assert(
      fc.property(fc.bigInt(1n, target.tokens / 10n), fc.bigInt(1n, target.usd / 10n), (rt, ru) => {
        const plan = planPoolSeed({ tokens: rt, usd: ru }, target);
        // The correcting swap pays the pair's 0.3 % on at most a tenth of the pool.
        expect(offBy(plan.after)).toBeLessThanOrEqual(1_000_000n);
      }),
      { numRuns: 1000 },
    );
    expect(offBy(planPoolSeed({ tokens: 1n, usd: 1n }, target).after)).toBe(0n);
    // A pair full of tokens and nearly no USD: the swap buys them, and they must not all go back in.
    expect(offBy(planPoolSeed({ tokens: 20_689_999_330_339_917_745_386_041n, usd: 7n }, target).after)).toBeLessThanOrEqual(1_000_000n);
    expect(offBy(planPoolSeed({ tokens: 0n, usd: 5n * USD }, target).after)).toBe(0n);
  });
});
