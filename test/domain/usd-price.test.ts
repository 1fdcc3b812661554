import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  assetAmountForUsd,
  compareUsdPrices,
  formatUsdPrice,
  InvalidPrice,
  medianUsdPrice,
  parseUsdPrice,
  usdPriceFromScaled,
  usdValueOf,
  withinBps,
  type UsdPrice,
} from '../../src/domain/usd-price.js';

const p = (text: string) => parseUsdPrice(text);

function reason(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidPrice);
    return (e as InvalidPrice).reason;
  }
  throw new Error('expected a rejection');
}

describe('parsing provider text', () => {
  it('parses decimals and exponents exactly, in lowest terms', () => {
    expect(p('1.0842')).toEqual({ mantissa: 10842n, scale: 4 });
    expect(p('0.99990000')).toEqual({ mantissa: 9999n, scale: 4 });
    expect(p('3000')).toEqual({ mantissa: 3000n, scale: 0 });
    expect(p('3.1e3')).toEqual({ mantissa: 3100n, scale: 0 });
    expect(p('1E-7')).toEqual({ mantissa: 1n, scale: 7 });
    expect(p('0.1000000000000000000001')).toEqual({ mantissa: 1n, scale: 1 }); // truncated past 18 decimals
    expect(formatUsdPrice(p('0.1000000000000000000001'))).toBe('0.1');
  });

  it.each(['NaN', 'Infinity', '', ' 1', '1,08', '+1', '.5', '1.', '0x10', 'abc', '1e', '--1'])('refuses %j as malformed', (text) => {
    expect(reason(() => p(text))).toBe('malformed');
  });

  it.each([null, undefined, 1.08, {}, []])('refuses the non-string %j as malformed', (value) => {
    expect(reason(() => parseUsdPrice(value))).toBe('malformed');
  });

  it.each(['0', '0.000', '-1.08', '-0', '1e30', '1000000000.000001', '1e-19', '1e-41', '1e41'])('refuses %j as absurd', (text) => {
    expect(reason(() => p(text))).toBe('absurd');
  });

  it('accepts a billion dollars exactly, not a cent more', () => {
    expect(formatUsdPrice(p('1000000000'))).toBe('1000000000');
    expect(reason(() => p('1000000000.01'))).toBe('absurd');
  });

  it('reads oracle integers with their exponent', () => {
    expect(usdPriceFromScaled(108_230_000n, -8)).toEqual({ mantissa: 10823n, scale: 4 }); // Pyth price + expo
    expect(usdPriceFromScaled(100_000_000n, -8)).toEqual({ mantissa: 1n, scale: 0 }); // Chainlink 8 decimals
    expect(reason(() => usdPriceFromScaled(-1n, -8))).toBe('absurd');
    expect(reason(() => usdPriceFromScaled(0n, -8))).toBe('absurd');
    expect(reason(() => usdPriceFromScaled(1n, 0.5))).toBe('malformed');
  });
});

describe('comparing and aggregating', () => {
  it('compares across scales', () => {
    expect(compareUsdPrices(p('1.08'), p('1.080'))).toBe(0);
    expect(compareUsdPrices(p('1.0799'), p('1.08'))).toBe(-1);
    expect(compareUsdPrices(p('2'), p('1.9999999'))).toBe(1);
  });

  it('takes the middle price, or the exact mean of the two middle ones', () => {
    expect(medianUsdPrice([p('1.09'), p('1.07'), p('1.08')])).toEqual(p('1.08'));
    expect(medianUsdPrice([p('1.0801'), p('1.08')])).toEqual(p('1.08005'));
    expect(medianUsdPrice([p('1'), p('2'), p('3'), p('100')])).toEqual(p('2.5'));
    expect(() => medianUsdPrice([])).toThrow(RangeError);
  });

  it('measures the spread in basis points exactly', () => {
    expect(withinBps(p('1.0908'), p('1.08'), 100n)).toBe(true); // exactly 1 %
    expect(withinBps(p('1.09081'), p('1.08'), 100n)).toBe(false);
    expect(withinBps(p('1.0692'), p('1.08'), 100n)).toBe(true);
    expect(withinBps(p('1.06919'), p('1.08'), 100n)).toBe(false);
  });

  it('the median lies between the smallest and the largest price', () => {
    const price = fc.bigInt({ min: 1n, max: 10n ** 15n }).chain((m) => fc.record({ mantissa: fc.constant(m), scale: fc.integer({ min: 0, max: 12 }) }));
    fc.assert(
      fc.property(fc.array(price, { minLength: 1, maxLength: 9 }), (prices: UsdPrice[]) => {
        const median = medianUsdPrice(prices);
        const sorted = [...prices].sort(compareUsdPrices);
        expect(compareUsdPrices(median, sorted[0]!)).toBeGreaterThanOrEqual(0);
        expect(compareUsdPrices(median, sorted.at(-1)!)).toBeLessThanOrEqual(0);
      }),
    );
  });
});

describe('converting USD and asset amounts', () => {
  it('charges the asset amount rounded up and books the USD value rounded down', () => {
    // $10.00 at EUR/USD 1.08 = 9.259259… EURC → 9.259260 EURC
    expect(assetAmountForUsd(10_000_000n, p('1.08'), 6)).toBe(9_259_260n);
    expect(usdValueOf(9_259_260n, p('1.08'), 6)).toBe(10_000_000n);
    // a depegged USDC at 0.97: $1 costs 1.030928 USDC
    expect(assetAmountForUsd(1_000_000n, p('0.97'), 6)).toBe(1_030_928n);
    expect(usdValueOf(1n, p('0.97'), 6)).toBe(0n);
    expect(assetAmountForUsd(5_000_000n, p('1'), 6)).toBe(5_000_000n);
    expect(assetAmountForUsd(1_000_000n, p('3000'), 18)).toBe(333_333_333_333_334n);
  });

  it('never lets the caller pay less than the USD price', () => {
    const price = fc.record({ mantissa: fc.bigInt({ min: 1n, max: 10n ** 12n }), scale: fc.integer({ min: 0, max: 10 }) });
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 12n }), price, fc.constantFrom(6, 18), (usd, pr: UsdPrice, decimals) => {
        const amount = assetAmountForUsd(usd, pr, decimals);
        expect(usdValueOf(amount, pr, decimals)).toBeGreaterThanOrEqual(usd);
        if (amount > 0n) expect(usdValueOf(amount - 1n, pr, decimals) < usd || usd === 0n).toBe(true);
      }),
    );
  });
});
