/** A sell order's bound at execution (docs/api.md "Orders", decision 0067): taken from its trigger, exact to the unit. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { feeOn } from '../../src/domain/fees.js';
import { compareTrigger, sellOrderBound, STOP_LOSS_BAND_BPS, usdAtPrice } from '../../src/domain/order.js';

const net = (gross: bigint, bps: bigint) => gross - feeOn(gross, bps);

describe('a sell order bound by its trigger', () => {
  it('a take-profit: no sale below its trigger meets its bound (before the fee), a sale a unit above it does', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 30n }), // tokens (units)
        fc.bigInt({ min: 1n, max: 10n ** 24n }), // trigger (USD/token × 1e18)
        fc.bigInt({ min: 0n, max: 4_999n }), // the base fee, bps
        (tokens, trigger, bps) => {
          const bound = sellOrderBound({ kind: 'take_profit', triggerPrice: trigger, tokens, minUsdOut: null }, bps);
          const atTrigger = usdAtPrice(trigger, tokens); // the gross at exactly the trigger, rounded up
          expect(compareTrigger(trigger, { usd: atTrigger, tokens })).toBeLessThanOrEqual(0);
          expect(net(atTrigger - 1n, bps)).toBeLessThan(bound); // proceeds are nondecreasing in the gross: every gross below misses it
          expect(net(atTrigger + 1n, bps)).toBeGreaterThanOrEqual(bound); // however the fee rounds, one unit more meets it
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it("a take-profit's own higher minUsdOut stands; a lower one does not loosen it", () => {
    const o = { kind: 'take_profit' as const, triggerPrice: 5n * 10n ** 12n, tokens: 10n ** 24n };
    const bound = sellOrderBound({ ...o, minUsdOut: null }, 100n);
    expect(bound).toBe(net(5_000_000n - 1n, 100n) + 1n); // a million tokens at $0.000005: $5 gross
    expect(sellOrderBound({ ...o, minUsdOut: bound + 7n }, 100n)).toBe(bound + 7n);
    expect(sellOrderBound({ ...o, minUsdOut: 1n }, 100n)).toBe(bound);
  });

  it("a stop-loss: its own minUsdOut, else its tokens at its trigger less the 5 % band, less the fee", () => {
    const o = { kind: 'stop_loss' as const, triggerPrice: 5n * 10n ** 12n, tokens: 10n ** 24n };
    expect(STOP_LOSS_BAND_BPS).toBe(500n);
    expect(sellOrderBound({ ...o, minUsdOut: null }, 100n)).toBe(net(4_750_000n, 100n));
    expect(sellOrderBound({ ...o, minUsdOut: 1n }, 100n)).toBe(1n);
  });
});
