import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkFeeShareRates, creatorSplitsProblem, feeBpsAt, splitCreatorShare, splitFee } from '../../src/domain/fees.js';

const RATES = { creatorBps: 5000n, platformReferrerBps: 2000n, tradeReferrerBps: 1000n };
const [PAYER, CREATOR, PLATFORM, REFERRER] = ['0xa', '0xc', '0xd', '0xe'].map((a) => a.padEnd(42, '0'));

describe('splitting a trading fee', () => {
  it('half to the creator, a fifth to the platform referrer, a tenth to the trade referrer, the rest to the treasury', () => {
    const split = splitFee(1_000_001n, RATES, { payer: PAYER!, creator: CREATOR!, platformReferrer: PLATFORM!, tradeReferrer: REFERRER! });
    expect(split.shares).toEqual([
      { role: 'creator', wallet: CREATOR, amount: 500_000n },
      { role: 'platform_referrer', wallet: PLATFORM, amount: 200_000n },
      { role: 'trade_referrer', wallet: REFERRER, amount: 100_000n },
    ]);
    expect(split.treasury).toBe(200_001n);
  });

  it('a referrer who pays earns nothing on their own trade; a missing one leaves its share with the treasury', () => {
    const split = splitFee(100n, RATES, { payer: REFERRER!, creator: CREATOR!, platformReferrer: null, tradeReferrer: REFERRER!.toUpperCase().replace('0X', '0x') });
    expect(split).toEqual({ shares: [{ role: 'creator', wallet: CREATOR, amount: 50n }], treasury: 50n });
  });

  it('shares + treasury = fee, every share ≥ 0 and rounded down, for any fee, rates and referrers', () => {
    const bps = fc.bigInt(0n, 10_000n);
    const wallet = fc.constantFrom(PAYER!, CREATOR!, PLATFORM!, REFERRER!);
    fc.assert(
      fc.property(fc.bigInt(0n, 10n ** 30n), bps, bps, bps, wallet, fc.option(wallet), fc.option(wallet), (fee, c, p, t, creator, platform, referrer) => {
        fc.pre(c + p + t <= 10_000n);
        const rates = { creatorBps: c, platformReferrerBps: p, tradeReferrerBps: t };
        checkFeeShareRates(rates);
        const split = splitFee(fee, rates, { payer: PAYER!, creator, platformReferrer: platform, tradeReferrer: referrer });
        expect(split.shares.reduce((s, x) => s + x.amount, 0n) + split.treasury).toBe(fee);
        expect(split.treasury).toBeGreaterThanOrEqual(0n);
        for (const s of split.shares) {
          expect(s.amount).toBeGreaterThan(0n);
          const rate = s.role === 'creator' ? c : s.role === 'platform_referrer' ? p : t;
          expect(s.amount).toBe((fee * rate) / 10_000n);
          if (s.role !== 'creator') expect(s.wallet).not.toBe(PAYER);
        }
      }),
    );
  });

  it('refuses rates that give away more than the fee', () => {
    expect(() => checkFeeShareRates({ creatorBps: 6000n, platformReferrerBps: 3000n, tradeReferrerBps: 1001n })).toThrow(/more than the fee/);
  });
});

describe("a creator share split among wallets, or given back to the trader", () => {
  const [A, B, C] = ['0x1', '0x2', '0x3'].map((a) => a.padEnd(42, '0'));
  const SPLITS = [
    { wallet: A!, bps: 6000 },
    { wallet: B!, bps: 3000 },
    { wallet: C!, bps: 1000 },
  ];

  it('60/30/10: each wallet its floor, the first the remainder, the creator nothing; referrers and the treasury as before', () => {
    const split = splitFee(1_000_003n, RATES, { payer: PAYER!, creator: CREATOR!, creatorSplits: SPLITS, platformReferrer: PLATFORM!, tradeReferrer: null });
    // The creator share is floor(1000003 × 5000 / 10000) = 500001: 300000 + 150000 + 50000 = 500000, the unit left to the first.
    expect(split.shares).toEqual([
      { role: 'creator', wallet: A, amount: 300_001n },
      { role: 'creator', wallet: B, amount: 150_000n },
      { role: 'creator', wallet: C, amount: 50_000n },
      { role: 'platform_referrer', wallet: PLATFORM, amount: 200_000n },
    ]);
    expect(split.treasury).toBe(1_000_003n - 500_001n - 200_000n);
  });

  it('the parts add up to the creator share to the unit, each its floor but the first, for any share and splits', () => {
    const splits = fc.array(fc.integer({ min: 1, max: 10_000 }), { minLength: 1, maxLength: 10 }).map((w) => {
      const total = w.reduce((a, b) => a + b, 0);
      const bps = w.map((x) => Math.floor((x * 10_000) / total) || 1);
      return bps;
    });
    fc.assert(
      fc.property(fc.bigInt(0n, 10n ** 30n), splits, (share, bps) => {
        const given = bps.map((b, i) => ({ wallet: `0x${String(i + 1).padStart(40, '0')}`, bps: b }));
        const parts = splitCreatorShare(share, given);
        expect(parts.reduce((s, p) => s + p.amount, 0n)).toBe(share);
        for (const [i, p] of parts.entries()) if (i > 0) expect(p.amount).toBe((share * BigInt(given[i]!.bps)) / 10_000n);
      }),
    );
  });

  it('cashback: the trader earns the creator share of its own trade, the creator nothing', () => {
    const split = splitFee(1_000n, RATES, { payer: PAYER!, creator: CREATOR!, feeMode: 'cashback', platformReferrer: null, tradeReferrer: REFERRER! });
    expect(split.shares).toEqual([
      { role: 'cashback', wallet: PAYER, amount: 500n },
      { role: 'trade_referrer', wallet: REFERRER, amount: 100n },
    ]);
    expect(split.treasury).toBe(400n);
  });

  it('takes 1 to 10 wallets, each at least 1 bps, summing to 10000, none twice', () => {
    expect(creatorSplitsProblem(SPLITS)).toBeNull();
    expect(creatorSplitsProblem([{ wallet: A!, bps: 10_000 }])).toBeNull();
    expect(creatorSplitsProblem([])).toMatchObject({ path: 'creatorSplits' });
    const eleven = Array.from({ length: 11 }, (_, i) => ({ wallet: `0x${String(i + 1).padStart(40, '0')}`, bps: i === 0 ? 9_000 : 100 }));
    expect(creatorSplitsProblem(eleven)).toMatchObject({ path: 'creatorSplits', message: expect.stringMatching(/1 to 10/) });
    expect(creatorSplitsProblem([{ wallet: A!, bps: 6000 }, { wallet: B!, bps: 3000 }])).toMatchObject({ path: 'creatorSplits', message: expect.stringMatching(/9000/) });
    expect(creatorSplitsProblem([{ wallet: A!, bps: 5000 }, { wallet: A!.toUpperCase().replace('0X', '0x'), bps: 5000 }])).toMatchObject({ path: 'creatorSplits.1.wallet' });
    expect(creatorSplitsProblem([{ wallet: A!, bps: 0 }, { wallet: B!, bps: 10_000 }])).toMatchObject({ path: 'creatorSplits.0.bps' });
  });
});

describe('the anti-snipe launch fee', () => {
  const launch = { startBps: 5000n, baseBps: 100n, decayMs: 20_000n };
  it('starts high, falls linearly to the base fee, rounded up to a whole basis point', () => {
    expect(feeBpsAt(launch, 0n)).toBe(5000n);
    expect(feeBpsAt(launch, 10_000n)).toBe(2550n);
    expect(feeBpsAt(launch, 19_999n)).toBe(101n);
    expect(feeBpsAt(launch, 20_000n)).toBe(100n);
    expect(feeBpsAt({ ...launch, decayMs: 0n }, 0n)).toBe(100n);
    expect(feeBpsAt({ ...launch, startBps: 100n }, 0n)).toBe(100n);
  });
  it('never rises with time', () => {
    fc.assert(fc.property(fc.bigInt(0n, 30_000n), fc.bigInt(0n, 30_000n), (a, b) => (a <= b ? feeBpsAt(launch, a) >= feeBpsAt(launch, b) : true)));
  });
});
