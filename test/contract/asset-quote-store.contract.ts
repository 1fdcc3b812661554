import { describe, expect, it } from 'vitest';
import { assetQuote, at } from '../support/fixtures.js';
import { withUow, type UowFactory } from './uow-factory.js';

export function assetQuoteStoreContract(name: string, make: UowFactory) {
  describe(`AssetQuoteStore contract: ${name}`, () => {
    it('holds a quote under its key exactly until it expires', () =>
      withUow(make, async (uow) => {
        const q = assetQuote({ holdKey: 'h1', price: { mantissa: 1084213n, scale: 6 }, expiresAt: at(60_000) });
        expect(await uow.run((s) => s.assetQuotes.hold(q, at(0)))).toEqual(q);
        expect(await uow.run((s) => s.assetQuotes.getHeld('h1', at(59_999)))).toEqual(q);
        expect(await uow.run((s) => s.assetQuotes.getHeld('h1', at(60_000)))).toBeNull();
        expect(await uow.run((s) => s.assetQuotes.getHeld('h2', at(0)))).toBeNull();
      }));

    it('an unexpired hold wins over a newer quote; an expired one is replaced', () =>
      withUow(make, async (uow) => {
        const first = assetQuote({ holdKey: 'h', expiresAt: at(60_000) });
        const second = assetQuote({ holdKey: 'h', price: { mantissa: 11n, scale: 1 }, createdAt: at(30_000), expiresAt: at(90_000) });
        await uow.run((s) => s.assetQuotes.hold(first, at(0)));
        expect(await uow.run((s) => s.assetQuotes.hold(second, at(30_000)))).toEqual(first);
        const third = assetQuote({ holdKey: 'h', price: { mantissa: 11n, scale: 1 }, createdAt: at(60_000), expiresAt: at(120_000) });
        expect(await uow.run((s) => s.assetQuotes.hold(third, at(60_000)))).toEqual(third);
        expect(await uow.run((s) => s.assetQuotes.getHeld('h', at(61_000)))).toEqual(third);
      }));

    it('the latest quotes of several keys are read in one call, expired too, keyed by hold key', () =>
      withUow(make, async (uow) => {
        const a = assetQuote({ holdKey: 'ka', expiresAt: at(60_000) });
        const b = assetQuote({ holdKey: 'kb', price: { mantissa: 108n, scale: 2 }, expiresAt: at(1_000) });
        for (const q of [a, b]) await uow.run((s) => s.assetQuotes.hold(q, at(0)));
        const found = await uow.run((s) => s.assetQuotes.latestOf(['ka', 'kb', 'kc']));
        expect([...found.keys()].sort()).toEqual(['ka', 'kb']);
        expect(found.get('ka')).toEqual(a);
        expect(found.get('kb')).toEqual(b);
        expect((await uow.run((s) => s.assetQuotes.latestOf([]))).size).toBe(0);
      }));

    it('the latest quote of a key is read expired too; a released quote is held no more, another is kept', () =>
      withUow(make, async (uow) => {
        const q = assetQuote({ holdKey: 'l', expiresAt: at(60_000) });
        await uow.run((s) => s.assetQuotes.hold(q, at(0)));
        expect(await uow.run((s) => s.assetQuotes.latest('l'))).toEqual(q);
        expect(await uow.run((s) => s.assetQuotes.getHeld('l', at(61_000)))).toBeNull();
        expect(await uow.run((s) => s.assetQuotes.latest('l'))).toEqual(q); // expired, still readable
        expect(await uow.run((s) => s.assetQuotes.latest('none'))).toBeNull();

        const other = assetQuote({ holdKey: 'l', expiresAt: at(60_000) });
        await uow.run((s) => s.assetQuotes.release('l', other.quoteId)); // not the one held: nothing happens
        expect(await uow.run((s) => s.assetQuotes.getHeld('l', at(0)))).toEqual(q);
        await uow.run((s) => s.assetQuotes.release('l', q.quoteId));
        expect(await uow.run((s) => s.assetQuotes.getHeld('l', at(0)))).toBeNull();
        expect(await uow.run((s) => s.assetQuotes.hold(other, at(0)))).toEqual(other); // the next hold takes a fresh quote
      }));

    it('concurrent holds for one key all see the same quote', () =>
      withUow(make, async (uow) => {
        const candidates = Array.from({ length: 10 }, () => assetQuote({ holdKey: 'race' }));
        const held = await Promise.all(candidates.map((q) => uow.run((s) => s.assetQuotes.hold(q, at(0)))));
        expect(new Set(held.map((q) => q.quoteId)).size).toBe(1);
      }));

    it('purges expired quotes in bounded runs', () =>
      withUow(make, async (uow) => {
        const qs = [5, 1, 4].map((t, i) => assetQuote({ holdKey: `k${i}`, expiresAt: at(t) }));
        const kept = assetQuote({ holdKey: 'kept', expiresAt: at(100_000) });
        for (const q of [...qs, kept]) await uow.run((s) => s.assetQuotes.hold(q, at(0)));
        expect(await uow.run((s) => s.assetQuotes.purgeExpired(at(10), 2))).toBe(2);
        expect(await uow.run((s) => s.assetQuotes.purgeExpired(at(10), 2))).toBe(1);
        expect(await uow.run((s) => s.assetQuotes.purgeExpired(at(10), 2))).toBe(0);
        expect(await uow.run((s) => s.assetQuotes.getHeld('kept', at(0)))).toEqual(kept);
      }));
  });
}
