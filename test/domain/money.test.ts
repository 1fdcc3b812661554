import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/domain/errors.js';
import {
  ceilDiv,
  floorDiv,
  formatAmount,
  formatRatio,
  formatTokens,
  formatUsd,
  parseTokens,
  parseUsd,
} from '../../src/domain/money.js';

function rejection(fn: () => unknown): ValidationError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return e as ValidationError;
  }
  throw new Error('expected a rejection');
}

describe('money parsing', () => {
  it('parses whole and fractional decimal strings into smallest units', () => {
    expect(parseUsd('5')).toBe(5_000_000n);
    expect(parseUsd('0.01')).toBe(10_000n);
    expect(parseUsd('12.5')).toBe(12_500_000n);
    expect(parseUsd('0.000001')).toBe(1n);
    expect(parseTokens('884495.291384607698648614')).toBe(884495291384607698648614n);
    expect(parseTokens('0')).toBe(0n);
  });

  it('keeps values far above 2^64 exact', () => {
    expect(parseTokens('1000000000000')).toBe(10n ** 30n);
    expect(formatTokens(2n ** 200n)).toBe(formatAmount(2n ** 200n, 18));
    expect(parseTokens(formatTokens(2n ** 200n + 7n))).toBe(2n ** 200n + 7n);
  });

  it.each([
    ['negative', '-1'],
    ['exponent', '1e6'],
    ['upper-case exponent', '1E6'],
    ['leading plus', '+1'],
    ['leading whitespace', ' 1'],
    ['trailing whitespace', '1 '],
    ['inner whitespace', '1 000'],
    ['empty', ''],
    ['bare dot', '.'],
    ['missing whole part', '.5'],
    ['missing fraction', '5.'],
    ['two dots', '1.2.3'],
    ['hex', '0x10'],
    ['comma decimal', '1,5'],
    ['infinity', 'Infinity'],
    ['NaN', 'NaN'],
    ['unicode digits', '١٢'],
  ])('rejects %s (%j) with VALIDATION_ERROR', (_label, input) => {
    const error = rejection(() => parseUsd(input, 'usdAmount'));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.issues[0]?.path).toBe('usdAmount');
  });

  it('rejects more decimals than the asset has instead of rounding', () => {
    const usd = rejection(() => parseUsd('0.0000001'));
    expect(usd.code).toBe('VALIDATION_ERROR');
    expect(usd.issues[0]?.message).toMatch(/6 decimal places/);
    const tokens = rejection(() => parseTokens('1.0000000000000000001'));
    expect(tokens.issues[0]?.message).toMatch(/18 decimal places/);
  });

  it('rejects numbers and other non-strings: amounts are decimal strings', () => {
    for (const input of [5, 5n, null, undefined, {}, ['5']]) {
      expect(rejection(() => parseUsd(input)).code).toBe('VALIDATION_ERROR');
    }
  });

  it('rejects absurdly long inputs before doing work on them', () => {
    expect(rejection(() => parseUsd('1'.repeat(101))).issues[0]?.message).toMatch(/too long/);
  });
});

describe('money formatting', () => {
  it('formats without trailing zeros and round-trips', () => {
    expect(formatUsd(5_000_000n)).toBe('5');
    expect(formatUsd(2_451_259n)).toBe('2.451259');
    expect(formatUsd(10_000n)).toBe('0.01');
    expect(formatUsd(0n)).toBe('0');
    expect(formatUsd(-1_500_000n)).toBe('-1.5');
    for (const v of [0n, 1n, 999_999n, 1_000_000n, 123_456_789n]) expect(parseUsd(formatUsd(v))).toBe(v);
  });

  it('formats ratios truncated toward zero', () => {
    expect(formatRatio(1n, 3n, 4)).toBe('0.3333');
    expect(formatRatio(2n, 3n, 4)).toBe('0.6666');
    expect(formatRatio(-2n, 3n, 4)).toBe('-0.6666');
    expect(formatRatio(3n, 3n, 4)).toBe('1');
  });
});

describe('integer division helpers', () => {
  it('floor and ceil', () => {
    expect(floorDiv(7n, 2n)).toBe(3n);
    expect(ceilDiv(7n, 2n)).toBe(4n);
    expect(ceilDiv(8n, 2n)).toBe(4n);
    expect(ceilDiv(0n, 5n)).toBe(0n);
  });

  it('refuse a zero denominator and a negative numerator', () => {
    expect(() => floorDiv(1n, 0n)).toThrow(RangeError);
    expect(() => ceilDiv(-1n, 2n)).toThrow(RangeError);
  });
});
