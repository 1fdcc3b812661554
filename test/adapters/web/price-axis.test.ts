/**
 * The price chart's y-axis (decision 0076): whatever the prices, the grid lines the chart draws
 * between them never share a label — not when prices barely move (issue 55: "0.00000559780" three
 * times on a filled raise's page), not for a single price.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { axisTicks, priceAxis, priceDecimals, shownRange, tickLabels } from '../../../src/adapters/web/browser/price-axis.js';

/** The labels the chart shows for these prices: its grid lines over the range it shows, labelled together. */
function labels(low: number, high: number, lines = 8): string[] {
  const axis = priceAxis(low, high);
  const [from, to] = shownRange(low, high, axis.minMove);
  return tickLabels(axisTicks(from, to, axis.minMove, lines), axis.decimals);
}

describe('the price axis', () => {
  it('labels the grid lines of a raise price that barely moves, each once', () => {
    // The filled raise's trades and the curve's price after them: a few parts in a million apart.
    const shown = labels(0.0000055978, 0.0000055981);
    expect(shown.length).toBeGreaterThanOrEqual(3);
    expect(new Set(shown).size).toBe(shown.length);
    // One price alone (a single candle, open = close): still distinct lines, four significant digits at least.
    const flat = labels(0.000005598, 0.000005598);
    expect(flat.length).toBeGreaterThanOrEqual(3);
    expect(new Set(flat).size).toBe(flat.length);
    expect(flat).toContain('0.000005598');
  });

  it('a range past the precision of a double (64 moving by 1e-13) draws each number once', () => {
    const low = 63.99999999993591; // fast-check's counterexample (seed 1869191219): two multiples of 1e-14 there are one double
    const shown = labels(low, low * (1 + 0.00001130102565157841 ** 3), 10);
    expect(new Set(shown).size).toBe(shown.length);
  });

  it('never repeats a label, whatever the range and however many lines fit', () => {
    const price = fc.double({ min: 1e-9, max: 1e4, noNaN: true });
    fc.assert(
      fc.property(price, fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 2, max: 30 }), (low, widen, lines) => {
        const high = low * (1 + widen * widen * widen); // spans from nothing to double, most of them tiny
        const shown = labels(low, high, lines);
        expect(new Set(shown).size).toBe(shown.length);
      }),
      { numRuns: 2000 },
    );
  });

  it('adds a decimal only when two labels would read alike, and keeps lines a unit of the last decimal apart at least', () => {
    expect(tickLabels([0.0000055978, 0.0000055979, 0.000005598], 9)).toEqual(['0.0000055978', '0.0000055979', '0.0000055980']);
    expect(tickLabels([0.00000559, 0.0000056], 9)).toEqual(['0.000005590', '0.000005600']);
    const axis = priceAxis(0.0000055, 0.0000057);
    expect(axis.decimals).toBe(9);
    expect(axis.minMove).toBe(1e-9);
    expect(axis.base).toBe(1e9);
    for (const [a, b] of [[0.0000055, 0.0000057], [1, 1], [0.0000055978, 0.0000055978]] as const) {
      const ticks = axisTicks(...shownRange(a, b, priceAxis(a, b).minMove), priceAxis(a, b).minMove, 30);
      for (let i = 1; i < ticks.length; i++) expect(ticks[i]! - ticks[i - 1]!).toBeGreaterThanOrEqual(priceAxis(a, b).minMove * (1 - 1e-9));
    }
  });

  it('shows a price with its four significant digits, what a price typed in a form is rounded to', () => {
    expect(priceDecimals(0.000005620186455538)).toBe(9);
    expect(priceDecimals(0.00042)).toBe(7);
    expect(priceDecimals(12.5)).toBe(2);
  });
});
