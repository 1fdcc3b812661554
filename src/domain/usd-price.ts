/**
 * USD prices of the assets the service is paid in or reports (docs/pricing.md). A price is an exact
 * decimal, `mantissa × 10^-scale` — never a float — kept in lowest terms so equal prices are
 * equal values. This module is the one place that parses a provider's decimal text and formats a
 * price; conversions between USD amounts and asset amounts round in the service's favour.
 */
import { USDC_DECIMALS, formatAmount } from './money.js';

export const PRICED_ASSETS = ['USDC', 'EURC', 'ETH'] as const;
export type PricedAsset = (typeof PRICED_ASSETS)[number];

export function isPricedAsset(value: unknown): value is PricedAsset {
  return typeof value === 'string' && (PRICED_ASSETS as readonly string[]).includes(value);
}

export interface UsdPrice {
  readonly mantissa: bigint;
  readonly scale: number;
}

/** Why a provider's value is not a price: not a number at all, or a number no asset is worth. */
export class InvalidPrice extends RangeError {
  constructor(
    readonly reason: 'malformed' | 'absurd',
    message: string,
  ) {
    super(message);
    this.name = 'InvalidPrice';
  }
}

// Bounds that make a value absurd rather than a price: none of our assets is worth a billion
// dollars or less than 1e-18 of one; longer inputs and wilder exponents only cost parsing work.
const MAX_SCALE = 18;
const MAX_EXPONENT = 40;
const MAX_TEXT = 64;
const MAX_USD_PRICE: UsdPrice = { mantissa: 1_000_000_000n, scale: 0 };

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * Parses a provider's decimal text exactly: "1.0842", "0.99990000", "3.1e3", "1E-7". Rejects
 * non-numbers ("NaN", "", "1,08", "+1") as malformed and zero, negatives, > 1e9 or < 1e-18 as
 * absurd; digits past the 18th decimal are truncated.
 */
export function parseUsdPrice(text: unknown): UsdPrice {
  if (typeof text !== 'string' || text.length === 0 || text.length > MAX_TEXT) {
    throw new InvalidPrice('malformed', `not a decimal string: ${describe(text)}`);
  }
  const m = DECIMAL.exec(text);
  if (!m) throw new InvalidPrice('malformed', `not a decimal number: ${describe(text)}`);
  const [, sign, whole, fraction = '', exponentText = '0'] = m;
  const exponent = Number(exponentText);
  if (Math.abs(exponent) > MAX_EXPONENT) throw new InvalidPrice('absurd', `exponent out of range: ${text}`);
  const digits = BigInt(whole! + fraction);
  return checked(sign === '-' ? -digits : digits, fraction.length - exponent, text);
}

/** An integer with a decimal exponent, as oracles publish them: Pyth's price × 10^expo, Chainlink's answer / 10^decimals. */
export function usdPriceFromScaled(integer: bigint, exponent: number): UsdPrice {
  if (!Number.isInteger(exponent) || Math.abs(exponent) > MAX_EXPONENT) {
    throw new InvalidPrice('malformed', `exponent out of range: ${exponent}`);
  }
  return checked(integer, -exponent, `${integer}e${exponent}`);
}

function checked(mantissa: bigint, scale: number, text: string): UsdPrice {
  if (mantissa <= 0n) throw new InvalidPrice('absurd', `a price must be positive: ${text}`);
  let price = normalize(mantissa, scale);
  if (price.scale > MAX_SCALE) {
    // Digits past the 18th decimal are noise; truncating lowers the price, which only ever makes
    // a caller pay more of the asset, never less.
    const truncated = price.mantissa / 10n ** BigInt(price.scale - MAX_SCALE);
    if (truncated === 0n) throw new InvalidPrice('absurd', `too small to be a price: ${text}`);
    price = normalize(truncated, MAX_SCALE);
  }
  if (compareUsdPrices(price, MAX_USD_PRICE) > 0) throw new InvalidPrice('absurd', `too large to be a price: ${text}`);
  return price;
}

function normalize(mantissa: bigint, scale: number): UsdPrice {
  let m = mantissa;
  let s = scale;
  if (s < 0) {
    m *= 10n ** BigInt(-s);
    s = 0;
  }
  while (s > 0 && m % 10n === 0n) {
    m /= 10n;
    s -= 1;
  }
  return { mantissa: m, scale: s };
}

/** The price as a plain decimal string ("1.0842"). */
export function formatUsdPrice(price: UsdPrice): string {
  return formatAmount(price.mantissa, price.scale);
}

/** Both prices over one denominator 10^scale. */
function aligned(a: UsdPrice, b: UsdPrice): [bigint, bigint, number] {
  const scale = Math.max(a.scale, b.scale);
  return [a.mantissa * 10n ** BigInt(scale - a.scale), b.mantissa * 10n ** BigInt(scale - b.scale), scale];
}

export function compareUsdPrices(a: UsdPrice, b: UsdPrice): -1 | 0 | 1 {
  const [x, y] = aligned(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The median; with an even count, the exact mean of the two middle prices. */
export function medianUsdPrice(prices: readonly UsdPrice[]): UsdPrice {
  if (prices.length === 0) throw new RangeError('the median of no prices');
  const sorted = [...prices].sort(compareUsdPrices);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length % 2 === 1) return sorted[mid]!;
  const [x, y, scale] = aligned(sorted[mid - 1]!, sorted[mid]!);
  // (x + y) / 2 = (x + y) × 5 / 10: exact with one more decimal.
  return normalize((x + y) * 5n, scale + 1);
}

/** Whether `price` lies within `bps` basis points of `reference` (|p − r| ≤ r × bps / 10000). */
export function withinBps(price: UsdPrice, reference: UsdPrice, bps: bigint): boolean {
  const [p, r] = aligned(price, reference);
  const distance = p > r ? p - r : r - p;
  return distance * 10_000n <= r * bps;
}

/**
 * The smallest amount of an asset worth at least `usdAmount` (USD in micro-dollars, 6 decimals)
 * at `price`: what a caller must pay, rounded up.
 */
export function assetAmountForUsd(usdAmount: bigint, price: UsdPrice, assetDecimals: number): bigint {
  if (usdAmount < 0n) throw new RangeError('a negative USD amount');
  const numerator = usdAmount * 10n ** BigInt(assetDecimals + price.scale);
  const denominator = price.mantissa * 10n ** BigInt(USDC_DECIMALS);
  return (numerator + denominator - 1n) / denominator;
}

/** The USD value (micro-dollars) of `units` of an asset at `price`, rounded down: what a payment is booked as. */
export function usdValueOf(units: bigint, price: UsdPrice, assetDecimals: number): bigint {
  if (units < 0n) throw new RangeError('a negative asset amount');
  return (units * price.mantissa * 10n ** BigInt(USDC_DECIMALS)) / 10n ** BigInt(assetDecimals + price.scale);
}

function describe(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
