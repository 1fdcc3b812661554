import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lockedOf, lockedShortfall, newVesting, releaseAt, vestedAt, type DevVesting } from '../../src/domain/vesting.js';

const T0 = new Date('2026-11-23T12:00:00.000Z');
const at = (s: number) => new Date(T0.getTime() + s * 1000);
const AMOUNT = 1_000_000n * 10n ** 18n + 7n;

describe('a vested dev buy', () => {
  const v = newVesting(AMOUNT, { cliffSeconds: 100, durationSeconds: 1000 }, T0);

  it('vests nothing before the cliff, then linearly, rounded down, everything at the end', () => {
    expect(vestedAt(v, at(99))).toBe(0n);
    expect(vestedAt(v, at(100))).toBe(0n);
    expect(vestedAt(v, at(350))).toBe((AMOUNT * 250n) / 1000n);
    expect(vestedAt(v, at(1100))).toBe(AMOUNT);
    expect(vestedAt(newVesting(AMOUNT, { cliffSeconds: 0, durationSeconds: 0 }, T0), T0)).toBe(AMOUNT);
    expect(lockedOf(v)).toBe(AMOUNT);
    expect(lockedOf(null)).toBe(0n);
  });

  it('is looked at first at the cliff; a release queues what vested since the last, then looks again within 1 % of the duration', () => {
    expect(v.nextReleaseAtMs).toBe(at(100).getTime());
    expect(releaseAt(v, at(99))).toBeNull();
    const atCliff = releaseAt(v, at(100))!;
    expect(atCliff.tokens).toBe(0n);
    expect(atCliff.vesting).toMatchObject({ released: 0n, releases: 0, nextReleaseAtMs: at(110).getTime() });
    const first = releaseAt(atCliff.vesting, at(350))!;
    expect(first.tokens).toBe((AMOUNT * 250n) / 1000n);
    expect(first.vesting).toMatchObject({ releases: 1, nextReleaseAtMs: at(360).getTime() });
    const last = releaseAt(first.vesting, at(5000))!;
    expect(first.tokens + last.tokens).toBe(AMOUNT);
    expect(last.vesting).toMatchObject({ released: AMOUNT, releases: 2, nextReleaseAtMs: null });
    expect(releaseAt(last.vesting, at(9000))).toBeNull();
  });

  it('waits at most a day between releases of a long schedule', () => {
    const long = newVesting(AMOUNT, { cliffSeconds: 0, durationSeconds: 4 * 365 * 24 * 3600 }, T0);
    expect(releaseAt(long, at(60))!.vesting.nextReleaseAtMs).toBe(at(60 + 24 * 3600).getTime());
  });

  it('releases every token once, whatever the passes', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 3600 }), fc.integer({ min: 0, max: 3600 }), fc.array(fc.integer({ min: 0, max: 600 }), { maxLength: 40 }), (cliff, duration, gaps) => {
        let vesting: DevVesting = newVesting(AMOUNT, { cliffSeconds: cliff, durationSeconds: duration }, T0);
        let released = 0n;
        let t = 0;
        for (const gap of [...gaps, cliff + duration + 1]) {
          t += gap;
          const r = releaseAt(vesting, at(t));
          if (!r) continue;
          released += r.tokens;
          vesting = r.vesting;
          expect(vesting.released).toBe(released);
          expect(released).toBeLessThanOrEqual(vestedAt(vesting, at(t)));
        }
        expect(released).toBe(AMOUNT);
        expect(vesting.nextReleaseAtMs).toBeNull();
      }),
    );
  });

  it("holds up the creator's sale of more than it holds while tokens are locked; anyone else's, or a sale it can cover, is not its business", () => {
    const token = { creator: '0x00000000000000000000000000000000000000c1', vesting: v };
    expect(lockedShortfall(token, token.creator, 10n, 9n)).toBe(AMOUNT);
    expect(lockedShortfall(token, token.creator, 10n, 10n)).toBe(0n);
    expect(lockedShortfall(token, '0x00000000000000000000000000000000000000d1', 10n, 0n)).toBe(0n);
    expect(lockedShortfall({ ...token, vesting: { ...v, released: AMOUNT } }, token.creator, 10n, 0n)).toBe(0n);
  });
});
