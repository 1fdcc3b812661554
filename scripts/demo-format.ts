/**
 * How `npm run demo` (scripts/demo.ts) writes what it did, so it reads in a terminal: every line at
 * most 100 columns, a label then its text; hashes and addresses shortened (`0x5f1e…0e9f`), dollars
 * to the cent (or two significant digits below one), prices to four significant digits, tokens to
 * two decimals. The service answers every figure exactly; the demo only prints them.
 */

/** The widest line the demo prints. */
export const WIDTH = 100;

/** A label column of 9, then the text; lines after the first are indented under the text. */
export function line(label: string, ...text: string[]): string {
  return text.map((t, i) => `${(i === 0 ? label : '').padEnd(8)} ${t}`.trimEnd()).join('\n');
}

/** A transaction hash or an address, its first 4 and last 4 hex digits: `0x5f1e…0e9f`. */
export const short = (hex: string): string => (/^0x[0-9a-fA-F]{12,}$/.test(hex) ? `${hex.slice(0, 6)}…${hex.slice(-4)}` : hex);

/** A decimal string with `digits` significant digits, never in exponent form: 0.000005601. */
export function significant(value: string, digits = 4): string {
  const n = Number(value);
  if (n === 0 || !Number.isFinite(n)) return String(n);
  const decimals = Math.max(0, digits - 1 - Math.floor(Math.log10(Math.abs(n))));
  return trim(n.toFixed(Math.min(decimals, 20)));
}

/** Dollars: to the cent, or two significant digits below a cent ($0.0056); no trailing zeros ($5, $1.4). */
export function usd(value: string): string {
  const n = Number(value);
  const text = Math.abs(n) >= 0.01 || n === 0 ? trim(Math.abs(n).toFixed(2)) : significant(String(Math.abs(n)), 2);
  return `${n < 0 ? '-' : ''}$${text}`;
}

/** Dollars with their sign, for a gain or a loss: +$0.03, -$0.05. */
export const signedUsd = (value: string): string => (Number(value) < 0 ? usd(value) : `+${usd(value)}`);

/** A price in dollars, four significant digits: $0.000005601. */
export const price = (value: string): string => `$${significant(value)}`;

/** Tokens to two decimals, cut (not rounded): 884495.29. */
export const tokens = (value: string): string => value.replace(/(\.\d{2})\d+$/, '$1');

function trim(fixed: string): string {
  return fixed.includes('.') ? fixed.replace(/\.?0+$/, '') : fixed;
}
