/**
 * Property tests of the curve and the ledger built on it: random sequences of buys and sells by
 * several wallets, each property checked over ≥ 1,000 runs.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_CURVE_PARAMS as P,
  initialCurveState,
  invariantK,
  maxBuyUsd,
  quoteBuyWithUsd,
  quoteSell,
  realUsdReserve,
  type CurveParams,
} from '../../src/domain/curve.js';
import { DomainError, TokenGraduated } from '../../src/domain/errors.js';
import { applyBuy, applySell, emptyPosition, type Position } from '../../src/domain/position.js';
import { newToken, NO_LINKS, withCurve, type Token } from '../../src/domain/token.js';

const RUNS = 1_000;
const NOW = new Date(0);
const WALLETS = ['0xA', '0xB', '0xC'];

type Op =
  | { kind: 'buy'; wallet: number; usd: bigint }
  | { kind: 'buyRest'; wallet: number }
  | { kind: 'sell'; wallet: number; fraction: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('buy' as const),
    wallet: fc.integer({ min: 0, max: 2 }),
    // from one cent to $20k: past the $17,172.80 that graduates the default curve
    usd: fc.bigInt({ min: 10_000n, max: 20_000_000_000n }),
  }),
  // buys what the rest of the curve costs: the way a curve sells out
  fc.record({ kind: fc.constant('buyRest' as const), wallet: fc.integer({ min: 0, max: 2 }) }),
  fc.record({
    kind: fc.constant('sell' as const),
    wallet: fc.integer({ min: 0, max: 2 }),
    fraction: fc.double({ min: 0.0001, max: 1, noNaN: true }),
  }),
);

interface Ledger {
  token: Token;
  positions: Position[];
  usdIn: bigint; // net USD into the curve (after fees)
  usdOut: bigint; // gross USD out of the curve (before fees)
  graduations: number;
}

function start(params: CurveParams = P): Ledger {
  const token = newToken({
    tokenId: 'tok_1',
    network: 'eip155:84532',
    metadata: { name: 'T', symbol: 'T', description: null, imageUrl: null, thumbnailUrl: null, links: NO_LINKS },
    creator: '0xC',
    params,
    address: '0x00000000000000000000000000000000000070c0',
    now: NOW,
  });
  return {
    token,
    positions: WALLETS.map((w) => emptyPosition('eip155:84532', w, 'tok_1', NOW)),
    usdIn: 0n,
    usdOut: 0n,
    graduations: 0,
  };
}

/** Applies one op as the service would; refused ops (domain errors) change nothing. */
function step(l: Ledger, op: Op): void {
  const before = l.token.curve;
  try {
    if (op.kind === 'buy' || op.kind === 'buyRest') {
      const usd = op.kind === 'buy' ? op.usd : maxBuyUsd(l.token.params, before);
      if (usd === 0n) return;
      const q = quoteBuyWithUsd(l.token.params, before, usd);
      expect(q.tokensOut > 0n && q.feeUsd >= 0n && q.netUsd > 0n).toBe(true);
      const wasActive = l.token.state === 'ACTIVE';
      l.token = withCurve(l.token, q.after, NOW);
      if (wasActive && l.token.state === 'GRADUATED') l.graduations++;
      l.positions[op.wallet] = applyBuy(l.positions[op.wallet]!, q.tokensOut, q.grossUsd, NOW);
      l.usdIn += q.netUsd;
    } else {
      const pos = l.positions[op.wallet]!;
      const tokens = BigInt(Math.floor(Number(pos.balance) * op.fraction));
      if (tokens <= 0n) return;
      const q = quoteSell(l.token.params, before, tokens > pos.balance ? pos.balance : tokens);
      expect(q.usdOut >= 0n && q.feeUsd >= 0n && q.grossUsd > 0n).toBe(true);
      l.token = withCurve(l.token, q.after, NOW);
      l.positions[op.wallet] = applySell(pos, q.tokensIn, q.usdOut, NOW);
      l.usdOut += q.grossUsd;
    }
  } catch (e) {
    if (!(e instanceof DomainError) || e.code === 'INTERNAL_ERROR') throw e;
    expect(l.token.curve).toBe(before);
  }
}

describe('curve and ledger properties', () => {
  it('k never decreases over any sequence of buys and sells', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 30 }), (ops) => {
        const l = start();
        for (const op of ops) {
          const k = invariantK(l.token.curve);
          step(l, op);
          expect(invariantK(l.token.curve)).toBeGreaterThanOrEqual(k);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('a buy followed by selling everything returns less than was paid', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 10 }), fc.bigInt({ min: 10_000n, max: 10_000_000_000n }), (ops, usd) => {
        const l = start();
        for (const op of ops) step(l, op);
        if (l.token.state !== 'ACTIVE' || usd > maxBuyUsd(P, l.token.curve)) return;
        const buy = quoteBuyWithUsd(P, l.token.curve, usd);
        const sell = quoteSell(P, buy.after, buy.tokensOut);
        expect(sell.usdOut).toBeLessThan(buy.grossUsd);
      }),
      { numRuns: RUNS },
    );
  });

  it('the sum of all balances always equals the tokens sold by the curve', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 30 }), (ops) => {
        const l = start();
        for (const op of ops) {
          step(l, op);
          const sum = l.positions.reduce((s, p) => s + p.balance, 0n);
          expect(sum).toBe(l.token.curve.tokensSold);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('USD reserve growth equals net USD in minus gross USD out', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 30 }), (ops) => {
        const l = start();
        for (const op of ops) {
          step(l, op);
          expect(realUsdReserve(P, l.token.curve)).toBe(l.usdIn - l.usdOut);
          expect(realUsdReserve(P, l.token.curve)).toBeGreaterThanOrEqual(0n);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('no trade ever yields a negative amount and no balance or basis goes negative', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 30 }), (ops) => {
        const l = start();
        for (const op of ops) {
          step(l, op);
          for (const p of l.positions) {
            expect(p.balance).toBeGreaterThanOrEqual(0n);
            expect(p.costBasisUsd).toBeGreaterThanOrEqual(0n);
            if (p.balance === 0n) expect(p.costBasisUsd).toBe(0n);
          }
          expect(l.token.curve.tokensSold).toBeGreaterThanOrEqual(0n);
          expect(l.token.curve.tokensSold).toBeLessThanOrEqual(P.curveSupply);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('graduation happens exactly when the curve supply is sold, and never twice', () => {
    // A small curve so random sequences reach graduation often.
    const small: CurveParams = {
      totalSupply: 1_000n * 10n ** 18n,
      curveSupply: 800n * 10n ** 18n,
      initialVirtualUsd: 10n * 10n ** 6n,
      initialVirtualTokens: 1_000n * 10n ** 18n,
      feeBps: 100n,
    };
    let graduatedRuns = 0;
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 20 }), (ops) => {
        const l = start(small);
        for (const op of ops) {
          step(l, op);
          const soldOut = l.token.curve.tokensSold === small.curveSupply;
          expect(l.token.state === 'GRADUATED').toBe(soldOut || l.graduations > 0);
          if (l.token.state === 'GRADUATED') {
            expect(l.token.graduatedAt).not.toBeNull();
            expect(() => withCurve(l.token, l.token.curve, NOW)).toThrow(TokenGraduated);
          }
        }
        expect(l.graduations).toBeLessThanOrEqual(1);
        if (l.graduations === 1) graduatedRuns++;
      }),
      { numRuns: RUNS },
    );
    expect(graduatedRuns).toBeGreaterThan(0);
  });
});

describe('curve state', () => {
  it('starts at the virtual reserves with nothing sold', () => {
    expect(initialCurveState(P)).toEqual({
      virtualUsd: P.initialVirtualUsd,
      virtualTokens: P.initialVirtualTokens,
      tokensSold: 0n,
    });
  });
});
