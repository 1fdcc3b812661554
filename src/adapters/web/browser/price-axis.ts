/**
 * The price chart's y-axis, worked out from the prices it shows (decision 0076): how many
 * decimals a label has, and the smallest step between two grid lines — one unit of the last
 * decimal. lightweight-charts puts its grid lines at multiples of 1, 2 or 5 × 10^k, never closer
 * than the series' `minMove` (its `base` is the inverse); with `minMove` one unit of the last
 * decimal shown, no two grid lines get one label however little the prices move, and the labels
 * of the lines drawn are made together (`tickLabels`), with a decimal more until they differ. No
 * DOM and no chart here: the tests run it in Node.
 */

export interface PriceAxis {
  /** Decimals of every label on the axis. */
  decimals: number;
  /** The least step between grid lines: 10^-decimals. */
  minMove: number;
  /** 1 / minMove, exactly (lightweight-charts computes it from minMove otherwise, with float error). */
  base: number;
  format(price: number): string;
}

/** Four significant digits of the largest price at least; more when the range is narrower than that. */
export function priceAxis(low: number, high: number): PriceAxis {
  const top = Math.max(Math.abs(low), Math.abs(high));
  const span = high - low;
  const forSize = top > 0 ? Math.ceil(-Math.log10(top)) + 3 : 2;
  // Eight grid lines across the range, each a label of its own.
  const forSpan = span > 0 ? Math.ceil(-Math.log10(span / 8)) : 0;
  const decimals = Math.min(14, Math.max(2, forSize, forSpan));
  return {
    decimals,
    minMove: 10 ** -decimals,
    base: 10 ** decimals,
    format: (p) => (p === 0 ? '0' : p.toFixed(decimals)),
  };
}

/** The grid lines' labels: `decimals` of each, more if two would read alike (never two equal labels). */
export function tickLabels(prices: readonly number[], decimals: number): string[] {
  for (let d = decimals; ; d++) {
    const labels = prices.map((p) => (p === 0 ? '0' : p.toFixed(d)));
    if (d >= 20 || new Set(labels).size === labels.length) return labels;
  }
}

/** The decimals a single price is shown with on the chart (its four significant digits): what a price typed in a form is rounded to. */
export const priceDecimals = (price: number): number => priceAxis(price, price).decimals;

/**
 * The grid lines lightweight-charts draws between `low` and `high` (its PriceTickSpanCalculator
 * for prices under 1, in short): the smallest step of 1, 2 or 5 × 10^k that is at least `minMove`
 * and leaves at most `maxLines` lines, and the multiples of that step in the range.
 */
export function axisTicks(low: number, high: number, minMove: number, maxLines = 8): number[] {
  if (!(high > low)) return [];
  const wanted = Math.max(minMove, (high - low) / maxLines);
  let step = 10 ** Math.floor(Math.log10(wanted));
  for (const m of [1, 2, 5, 10]) {
    if (m * step >= wanted * (1 - 1e-9)) {
      step *= m;
      break;
    }
  }
  const ticks: number[] = [];
  for (let k = Math.ceil(low / step - 1e-9); k * step <= high * (1 + 1e-12); k++) {
    // Past a double's precision (a step of 1e-14 at 64) two multiples are one number: one line, not two.
    if (ticks.at(-1) !== k * step) ticks.push(k * step);
  }
  return ticks;
}

/** The range the chart shows for these prices: lightweight-charts widens a single price by five steps each way. */
export function shownRange(low: number, high: number, minMove: number): [number, number] {
  return high > low ? [low, high] : [low - 5 * minMove, high + 5 * minMove];
}
