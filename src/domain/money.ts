/**
 * Money: every amount inside the service is a non-negative `bigint` in the asset's smallest
 * unit. Decimal strings exist only at the edge; this module is the one place that parses and
 * formats them.
 */
import { ValidationError } from './errors.js';

export const USDC_DECIMALS = 6;
export const TOKEN_DECIMALS = 18;

export const USDC_UNIT = 10n ** BigInt(USDC_DECIMALS);
export const TOKEN_UNIT = 10n ** BigInt(TOKEN_DECIMALS);

/**
 * The most USD an amount a caller names may be (docs/decisions/0065): $1,000,000,000,000, more
 * than all the USDC there is — no payment, pledge, order or bound a wallet could mean reaches it —
 * and 10^18 units, inside a signed 64-bit integer, what SQLite's integer arithmetic is exact to.
 */
export const MAX_USD_INPUT = 1_000_000_000_000n * USDC_UNIT;
/** 2^256: no token amount a wallet signs (a uint256) reaches it; below 10^78, what numeric(78,0) holds. */
export const UINT256_LIMIT = 1n << 256n;

// Long enough for any amount of an 18-decimal asset up to 2^256; bounds parsing work.
const MAX_INPUT_LENGTH = 100;
const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/**
 * Parses a plain decimal string ("12.5") into smallest units. Rejects, never rounds:
 * negatives, "+", exponents, whitespace, empty strings and more decimals than the asset has.
 */
export function parseAmount(input: unknown, decimals: number, path = 'amount'): bigint {
  if (typeof input !== 'string') {
    throw ValidationError.of(path, 'must be a decimal string, e.g. "12.5"');
  }
  if (input.length === 0) throw ValidationError.of(path, 'must not be empty');
  if (input.length > MAX_INPUT_LENGTH) throw ValidationError.of(path, 'is too long');
  const match = DECIMAL.exec(input);
  if (!match) {
    throw ValidationError.of(
      path,
      'must be a plain non-negative decimal string (digits and one optional ".", no sign, exponent or spaces)',
    );
  }
  const whole = match[1]!;
  const fraction = match[2] ?? '';
  if (fraction.length > decimals) {
    throw ValidationError.of(path, `has more than ${decimals} decimal places`);
  }
  return BigInt(whole + fraction.padEnd(decimals, '0'));
}

export const parseUsd = (input: unknown, path = 'usdAmount'): bigint => parseAmount(input, USDC_DECIMALS, path);
export const parseTokens = (input: unknown, path = 'tokens'): bigint => parseAmount(input, TOKEN_DECIMALS, path);

/** Formats smallest units as a decimal string without trailing zeros ("5", "0.25", "-1.5"). */
export function formatAmount(value: bigint, decimals: number): string {
  const negative = value < 0n;
  const abs = negative ? -value : value;
  const unit = 10n ** BigInt(decimals);
  const whole = abs / unit;
  const fraction = (abs % unit).toString().padStart(decimals, '0').replace(/0+$/, '');
  const text = fraction.length > 0 ? `${whole}.${fraction}` : whole.toString();
  return negative ? `-${text}` : text;
}

export const formatUsd = (value: bigint): string => formatAmount(value, USDC_DECIMALS);
export const formatTokens = (value: bigint): string => formatAmount(value, TOKEN_DECIMALS);

function assertDivision(numerator: bigint, denominator: bigint): void {
  if (denominator <= 0n) throw new RangeError('division by a non-positive denominator');
  if (numerator < 0n) throw new RangeError('division of a negative numerator');
}

/** floor(n / d) for n ≥ 0, d > 0. */
export function floorDiv(numerator: bigint, denominator: bigint): bigint {
  assertDivision(numerator, denominator);
  return numerator / denominator;
}

/** ceil(n / d) for n ≥ 0, d > 0. */
export function ceilDiv(numerator: bigint, denominator: bigint): bigint {
  assertDivision(numerator, denominator);
  return (numerator + denominator - 1n) / denominator;
}

/**
 * The ratio n/d (d > 0) as a decimal string with at most `digits` decimals, truncated toward
 * zero. Used for prices, progress and shares, which are displayed, never charged.
 */
export function formatRatio(numerator: bigint, denominator: bigint, digits: number): string {
  if (denominator <= 0n) throw new RangeError('division by a non-positive denominator');
  const magnitude = ((numerator < 0n ? -numerator : numerator) * 10n ** BigInt(digits)) / denominator;
  return formatAmount(numerator < 0n ? -magnitude : magnitude, digits);
}
