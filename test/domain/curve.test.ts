import { describe, expect, it } from 'vitest';
import {
  costForTokens,
  DEFAULT_CURVE_PARAMS as P,
  initialCurveState,
  invariantK,
  marketCapUsd,
  maxBuyUsd,
  progress,
  quoteBuyForTokens,
  quoteBuyWithUsd,
  quoteSell,
  realUsdReserve,
  spotPriceUsd,
  checkCurveParams,
} from '../../src/domain/curve.js';
import { CurveCapacityExceeded, ValidationError } from '../../src/domain/errors.js';
import { feeOn } from '../../src/domain/fees.js';
import { formatTokens, formatUsd, parseTokens, parseUsd } from '../../src/domain/money.js';

const s0 = initialCurveState(P);

describe('curve worked examples (hand-checked)', () => {
  it('a $5 buy at the default curve gives 884495.291384607698648614 tokens', () => {
    const buy = quoteBuyWithUsd(P, s0, parseUsd('5'));
    // fee = ceil(5_000_000 · 100 / 10_000) = 50_000; d = 4_950_000;
    // tokensOut = floor(1_073_000_000e18 · 4_950_000 / (6_000_000_000 + 4_950_000))
    expect(buy.feeUsd).toBe(50_000n);
    expect(buy.netUsd).toBe(4_950_000n);
    expect(formatTokens(buy.tokensOut)).toBe('884495.291384607698648614');
    expect(buy.after.virtualUsd).toBe(6_004_950_000n);
    expect(buy.after.tokensSold).toBe(buy.tokensOut);
  });

  it('selling half of it right after gives 2.451259 USDC', () => {
    const buy = quoteBuyWithUsd(P, s0, parseUsd('5'));
    const sell = quoteSell(P, buy.after, buy.tokensOut / 2n);
    // gross = floor(6_004_950_000 · t / (y + t)) = 2_476_020; fee = ceil(24_760.2) = 24_761
    expect(sell.grossUsd).toBe(2_476_020n);
    expect(sell.feeUsd).toBe(24_761n);
    expect(formatUsd(sell.usdOut)).toBe('2.451259');
  });

  it('spot price, market cap and progress at the start', () => {
    // 6000 / 1_073_000_000 USD per token
    expect(spotPriceUsd(s0)).toBe('0.000005591798695246');
    expect(formatUsd(marketCapUsd(P, s0))).toBe('5591.798695');
    expect(progress(P, s0)).toBe('0');
  });

  it('the whole curve costs 17172.799811 USDC', () => {
    expect(formatUsd(maxBuyUsd(P, s0))).toBe('17172.799811');
  });
});

describe('buying an exact amount of tokens', () => {
  it('charges the smallest gross USD that yields at least the tokens', () => {
    for (const t of ['1', '1000', '884495.291384607698648614', '123456789.123456789123456789']) {
      const tokens = parseTokens(t);
      const cost = costForTokens(P, s0, tokens);
      expect(quoteBuyWithUsd(P, s0, cost).tokensOut).toBeGreaterThanOrEqual(tokens);
      expect(quoteBuyWithUsd(P, s0, cost - 1n).tokensOut).toBeLessThan(tokens);
    }
  });

  it('the $5 example inverts to exactly $5', () => {
    expect(costForTokens(P, s0, parseTokens('884495.291384607698648614'))).toBe(5_000_000n);
    expect(quoteBuyForTokens(P, s0, parseTokens('884495.291384607698648614')).grossUsd).toBe(5_000_000n);
  });
});

describe('capacity and graduation', () => {
  it('refuses a buy beyond the remaining supply and says what the rest costs', () => {
    const max = maxBuyUsd(P, s0);
    let error: unknown;
    try {
      quoteBuyWithUsd(P, s0, max + 1n);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CurveCapacityExceeded);
    expect((error as CurveCapacityExceeded).details).toEqual({ maxUsd: '17172.799811', remainingTokens: '793100000' });
    expect(() => costForTokens(P, s0, P.curveSupply + 1n)).toThrow(CurveCapacityExceeded);
  });

  it('paying exactly what the rest costs sells exactly the rest and graduates', () => {
    const buy = quoteBuyWithUsd(P, s0, maxBuyUsd(P, s0));
    expect(buy.tokensOut).toBe(P.curveSupply);
    expect(buy.graduates).toBe(true);
    expect(progress(P, buy.after)).toBe('1');
    expect(buy.after.virtualTokens).toBe(P.initialVirtualTokens - P.curveSupply);
    expect(maxBuyUsd(P, buy.after)).toBe(0n);
  });

  it('a buy one unit short of the rest does not graduate', () => {
    const buy = quoteBuyWithUsd(P, s0, maxBuyUsd(P, s0) - 1n);
    expect(buy.graduates).toBe(false);
    expect(buy.tokensOut).toBeLessThan(P.curveSupply);
  });
});

describe('guards', () => {
  it('rejects zero amounts and dust that buys or sells nothing', () => {
    expect(() => quoteBuyWithUsd(P, s0, 0n)).toThrow(ValidationError);
    expect(() => quoteSell(P, quoteBuyWithUsd(P, s0, 10_000n).after, 1n)).toThrow(ValidationError);
    // gross 1 unit, fee rounded up to 1 unit: nothing would be paid out
    const after = quoteBuyWithUsd(P, s0, 1_000_000n).after;
    const { virtualUsd: x, virtualTokens: y } = after;
    const grossOne = (y + x - 2n) / (x - 1n); // smallest t with floor(x·t/(y+t)) = 1
    const grossTwo = (2n * y + x - 3n) / (x - 2n); // smallest t with gross 2: fee 1, 1 paid out
        expect(() => quoteSell(P, after, grossOne)).toThrow(ValidationError);
    expect(quoteSell(P, after, grossTwo)).toMatchObject({ grossUsd: 2n, feeUsd: 1n, usdOut: 1n });
    expect(() => costForTokens(P, s0, 0n)).toThrow(ValidationError);
  });

  it('k does not decrease and the USD reserve tracks net flows in a round trip', () => {
    const buy = quoteBuyWithUsd(P, s0, 1_000_000_000n);
    const sell = quoteSell(P, buy.after, buy.tokensOut);
    expect(invariantK(buy.after)).toBeGreaterThanOrEqual(invariantK(s0));
    expect(invariantK(sell.after)).toBeGreaterThanOrEqual(invariantK(buy.after));
    expect(realUsdReserve(P, sell.after)).toBe(buy.netUsd - sell.grossUsd);
    expect(sell.usdOut).toBeLessThan(buy.grossUsd);
  });

  it('fees are rounded up', () => {
    expect(feeOn(1n, 100n)).toBe(1n);
    expect(feeOn(100n, 100n)).toBe(1n);
    expect(feeOn(101n, 100n)).toBe(2n);
    expect(feeOn(0n, 100n)).toBe(0n);
    expect(() => feeOn(1n, 10_000n)).toThrow(RangeError);
  });

  it('refuses inconsistent parameters', () => {
    expect(() => checkCurveParams({ ...P, curveSupply: P.initialVirtualTokens })).toThrow(RangeError);
    expect(() => checkCurveParams({ ...P, curveSupply: P.totalSupply + 1n })).toThrow(RangeError);
    expect(() => checkCurveParams({ ...P, feeBps: -1n })).toThrow(RangeError);
  });
});
