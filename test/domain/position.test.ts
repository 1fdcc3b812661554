import { describe, expect, it } from 'vitest';
import { DEFAULT_CURVE_PARAMS as P, initialCurveState, quoteBuyWithUsd, quoteSell } from '../../src/domain/curve.js';
import { InsufficientBalance } from '../../src/domain/errors.js';
import { applyBuy, applySell, emptyPosition, valuePosition } from '../../src/domain/position.js';

const t0 = new Date(0);

describe('positions (average cost)', () => {
  it('cost basis is the gross USD paid, fee included', () => {
    const buy = quoteBuyWithUsd(P, initialCurveState(P), 5_000_000n);
    const p = applyBuy(emptyPosition('eip155:84532', '0xA', 'tok_1', t0), buy.tokensOut, buy.grossUsd, t0);
    expect(p.balance).toBe(buy.tokensOut);
    expect(p.costBasisUsd).toBe(5_000_000n);
  });

  it('a sell removes a proportional, rounded-down share of the basis and realizes PnL', () => {
    const s0 = initialCurveState(P);
    const buy = quoteBuyWithUsd(P, s0, 5_000_000n);
    let p = applyBuy(emptyPosition('eip155:84532', '0xA', 'tok_1', t0), buy.tokensOut, 5_000_000n, t0);
    const half = buy.tokensOut / 2n;
    const sell = quoteSell(P, buy.after, half);
    p = applySell(p, half, sell.usdOut, t0);
    // floor(5_000_000 · half / balance) = 2_500_000; proceeds 2_451_259 → realized −0.048741
    expect(p.costBasisUsd).toBe(2_500_000n);
    expect(p.realizedPnlUsd).toBe(-48_741n);
    expect(p.balance).toBe(buy.tokensOut - half);
  });

  it('rounds the removed basis down (the remaining basis keeps the remainder)', () => {
    let p = applyBuy(emptyPosition('eip155:84532', '0xA', 'tok_1', t0), 3n, 10n, t0);
    p = applySell(p, 1n, 2n, t0);
    // floor(10 · 1 / 3) = 3 removed
    expect(p).toMatchObject({ balance: 2n, costBasisUsd: 7n, realizedPnlUsd: -1n });
  });

  it('selling everything clears the basis', () => {
    let p = applyBuy(emptyPosition('eip155:84532', '0xA', 'tok_1', t0), 3n, 10n, t0);
    p = applySell(p, 3n, 7n, t0);
    expect(p).toMatchObject({ balance: 0n, costBasisUsd: 0n, realizedPnlUsd: -3n });
  });

  it('cannot sell more than the balance', () => {
    const p = applyBuy(emptyPosition('eip155:84532', '0xA', 'tok_1', t0), 3n, 10n, t0);
    expect(() => applySell(p, 4n, 1n, t0)).toThrow(InsufficientBalance);
  });

  it('values the balance at spot and reports unrealized PnL', () => {
    const s0 = initialCurveState(P);
    const buy = quoteBuyWithUsd(P, s0, 5_000_000n);
    const p = applyBuy(emptyPosition('eip155:84532', '0xA', 'tok_1', t0), buy.tokensOut, 5_000_000n, t0);
    const v = valuePosition(p, buy.after);
    // spot after the buy values the tokens slightly above the 4.95 net paid, below the 5 gross
    expect(v.valueUsd).toBe((buy.tokensOut * buy.after.virtualUsd) / buy.after.virtualTokens);
    expect(v.valueUsd).toBeGreaterThan(4_950_000n);
    expect(v.unrealizedPnlUsd).toBe(v.valueUsd - 5_000_000n);
  });
});
