/**
 * Numbers for people. The API's amounts are exact decimal strings; the page shows them rounded
 * and compact ("$5.59K", "884.5K"), and every amount is one click from its exact string (ui.ts
 * `amount`). Rounding works on the digits with bigint, never floats, so what is shown is the
 * exact value rounded half up. No DOM here: the tests run it in Node.
 */
import { formatAmount, parseAmount } from '../../../domain/money.js';

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

interface Parts {
  negative: boolean;
  int: string;
  frac: string;
}

function parts(value: string): Parts | null {
  const negative = value.startsWith('-');
  const m = DECIMAL.exec(negative ? value.slice(1) : value);
  if (!m) return null;
  return { negative, int: m[1]!.replace(/^0+(?=\d)/, ''), frac: m[2] ?? '' };
}

/** Rounds `int.frac` half up to `places` decimals; returns the digits as int and frac strings. */
function round(int: string, frac: string, places: number): { int: string; frac: string } {
  const digits = BigInt(int + frac.padEnd(places + 1, '0').slice(0, places + 1));
  const rounded = (digits + 5n) / 10n;
  const s = rounded.toString().padStart(places + 1, '0');
  return { int: s.slice(0, s.length - places) || '0', frac: places === 0 ? '' : s.slice(s.length - places) };
}

const group = (int: string) => int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
const trim = (frac: string) => frac.replace(/0+$/, '');
const join = (int: string, frac: string) => (frac ? `${int}.${frac}` : int);

const SUFFIXES = ['', 'K', 'M', 'B', 'T'];

/**
 * "1234567.891" → "1.23M"; "5591.798" → "5.59K"; "12.3456" → "12.35"; "0.0000055917986" →
 * "0.000005592" (four significant digits below 1). `places` is the decimals kept at or above 1.
 */
export function compact(value: string, places = 2): string {
  const p = parts(value);
  if (!p) return value;
  const sign = p.negative ? '−' : '';
  if (p.int === '0') {
    if (/^0*$/.test(p.frac)) return '0';
    const zeros = /^0*/.exec(p.frac)![0].length;
    const r = round('0', p.frac, zeros + 4);
    // Rounding may carry into a new digit (0.00009999 → 0.0001000): trim the zeros either way.
    return sign + join(r.int, trim(r.frac));
  }
  const scale = Math.min(Math.floor((p.int.length - 1) / 3), SUFFIXES.length - 1);
  if (scale === 0) {
    const r = round(p.int, p.frac, places);
    return sign + join(group(r.int), trim(r.frac));
  }
  const cut = p.int.length - scale * 3;
  let r = round(p.int.slice(0, cut), p.int.slice(cut) + p.frac, 2);
  let suffix = SUFFIXES[scale]!;
  if (r.int.length > 3 && scale < SUFFIXES.length - 1) {
    // 999.999K rounds to 1000K: say 1M.
    r = { int: r.int.slice(0, r.int.length - 3), frac: '' };
    suffix = SUFFIXES[scale + 1]!;
  }
  return sign + join(group(r.int), trim(r.frac)) + suffix;
}

/**
 * An amount written out for a sentence, thousands grouped and not abbreviated: "176121.7528…" →
 * "176,121.75"; below 1, four significant digits ("0.0000055917986" → "0.000005592").
 */
export function grouped(value: string, places = 2): string {
  const p = parts(value);
  if (!p) return value;
  if (p.int === '0') return compact(value);
  const r = round(p.int, p.frac, places);
  return (p.negative ? '−' : '') + join(group(r.int), trim(r.frac));
}

/** A decimal string rounded half up to `places` decimals, trailing zeros dropped: a value a form may hold. */
export function roundTo(value: string, places: number): string {
  const p = parts(value);
  if (!p) return value;
  const r = round(p.int, p.frac, places);
  return (p.negative ? '-' : '') + join(r.int, trim(r.frac));
}

const PRICE_UNITS = 18;

/**
 * What an order's trigger starts at (decision 0076): `percent` from the spot price — below it for a
 * limit buy or a stop-loss, above it for a take-profit — rounded to `places` decimals (the
 * chart's precision for that price), never the spot's 18 decimals.
 */
export function triggerFrom(spot: string, percent: number, places: number): string {
  const units = toUnits(spot, PRICE_UNITS);
  if (units === null) return spot;
  const moved = (units * BigInt(100 + percent)) / 100n;
  return roundTo(fromUnits(moved, PRICE_UNITS), places);
}

export const usdText = (value: string) => (value.startsWith('-') ? `−$${compact(value.slice(1))}` : `$${compact(value)}`);

/** "0.4213" → "42.13%". */
export function percentText(fraction: string, places = 2): string {
  const p = parts(fraction);
  if (!p) return fraction;
  const int = (p.int + p.frac.padEnd(2, '0').slice(0, 2)).replace(/^0+(?=\d)/, '');
  const r = round(int, p.frac.slice(2), places);
  return `${p.negative ? '−' : ''}${join(r.int, trim(r.frac))}%`;
}

export function shortAddress(address: string): string {
  return address.length > 12 ? `${address.slice(0, 6)}…${address.slice(-4)}` : address;
}

/** "12 s ago", "5 min ago", "3 h ago", "2 d ago" — a display of time only. */
export function ago(iso: string, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}

/** "2 d 4 h left", "2 h 14 min left", "5 min left", "45 s left", "ended" — how long until `iso`. */
export function timeLeft(iso: string, now = Date.now()): string {
  const s = Math.max(0, Math.floor((Date.parse(iso) - now) / 1000));
  if (s === 0) return 'ended';
  if (s < 60) return `${s} s left`;
  if (s < 3600) return `${Math.floor(s / 60)} min left`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min left`;
  return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h left`;
}

/** Smallest units (the 402's `amount`) as a decimal string: the service's own formatter. */
export const fromUnits = (units: string | bigint, decimals: number): string => formatAmount(BigInt(units), decimals);

/** A decimal string as smallest units (the service's own parser); null when it is not one with at most `decimals` places. */
export function toUnits(value: string, decimals: number): bigint | null {
  try {
    return parseAmount(value.trim(), decimals);
  } catch {
    return null;
  }
}

export const NETWORK_NAMES: Record<string, string> = { 'eip155:8453': 'Base', 'eip155:84532': 'Base Sepolia' };
export const networkName = (network: string) => NETWORK_NAMES[network] ?? network;

/** The short form of a token id that tells apart two tokens with one symbol: "tok_…9R4TK2". */
export const shortId = (tokenId: string) => `${tokenId.slice(0, 4)}…${tokenId.slice(-6)}`;

/**
 * A curve token's price change since launch, as a fraction string, from its reserves: the launch
 * price is (virtual USD − real USD) / (virtual tokens + tokens sold). For a token younger than a
 * day, that is its 24 h change. Null for a graduated token (its price is the pool's).
 */
export function changeSinceLaunch(t: { state: string; priceUsd: string; curve: { virtualUsdReserve?: string; virtualTokenReserve?: string; realUsdReserve: string; tokensSold: string } }): string | null {
  if (t.state !== 'ACTIVE' || t.curve.virtualUsdReserve === undefined || t.curve.virtualTokenReserve === undefined) return null;
  const launch = (Number(t.curve.virtualUsdReserve) - Number(t.curve.realUsdReserve)) / (Number(t.curve.virtualTokenReserve) + Number(t.curve.tokensSold));
  if (!(launch > 0)) return null;
  const change = Number(t.priceUsd) / launch - 1;
  return (Math.abs(change) < 5e-7 ? 0 : change).toFixed(6);
}
