import { describe, expect, it } from 'vitest';
import { at, quote } from '../support/fixtures.js';
import { withUow, type UowFactory } from './uow-factory.js';

export function quoteStoreContract(name: string, make: UowFactory) {
  describe(`QuoteStore contract: ${name}`, () => {
    it('saves and reads quotes exactly', () =>
      withUow(make, async (uow) => {
        const q = quote({ side: 'sell' });
        await uow.run((s) => s.quotes.save(q));
        expect(await uow.run((s) => s.quotes.get(q.quoteId))).toEqual(q);
        expect(await uow.run((s) => s.quotes.get('qte_missing'))).toBeNull();
      }));

    it('holds a quote under a key until it expires; a newer hold replaces it', () =>
      withUow(make, async (uow) => {
        const q1 = quote({ expiresAt: at(60_000) });
        await uow.run((s) => s.quotes.save(q1, 'buy_tokens:tok_X:1'));
        expect(await uow.run((s) => s.quotes.getHeld('buy_tokens:tok_X:1', at(59_999)))).toEqual(q1);
        expect(await uow.run((s) => s.quotes.getHeld('buy_tokens:tok_X:1', at(60_000)))).toBeNull();
        expect(await uow.run((s) => s.quotes.getHeld('buy_tokens:tok_X:2', at(0)))).toBeNull();
        const q2 = quote({ expiresAt: at(120_000) });
        await uow.run((s) => s.quotes.save(q2, 'buy_tokens:tok_X:1'));
        expect(await uow.run((s) => s.quotes.getHeld('buy_tokens:tok_X:1', at(61_000)))).toEqual(q2);
      }));

    it('purges expired quotes', () =>
      withUow(make, async (uow) => {
        const gone = quote({ expiresAt: at(1) });
        const kept = quote({ expiresAt: at(100_000) });
        await uow.run(async (s) => {
          await s.quotes.save(gone, 'k1');
          await s.quotes.save(kept, 'k2');
        });
        expect(await uow.run((s) => s.quotes.purgeExpired(at(50_000), 100))).toBe(1);
        expect(await uow.run((s) => s.quotes.get(gone.quoteId))).toBeNull();
        expect(await uow.run((s) => s.quotes.get(kept.quoteId))).toEqual(kept);
        expect(await uow.run((s) => s.quotes.getHeld('k1', at(0)))).toBeNull();
      }));

    it('purges in bounded runs, oldest first', () =>
      withUow(make, async (uow) => {
        const qs = [5, 1, 4, 2, 3].map((t) => quote({ expiresAt: at(t) }));
        await uow.run(async (s) => {
          for (const q of qs) await s.quotes.save(q);
        });
        expect(await uow.run((s) => s.quotes.purgeExpired(at(10), 2))).toBe(2);
        expect(await uow.run((s) => s.quotes.get(qs[1]!.quoteId))).toBeNull(); // expired at 1
        expect(await uow.run((s) => s.quotes.get(qs[3]!.quoteId))).toBeNull(); // expired at 2
        expect(await uow.run((s) => s.quotes.get(qs[4]!.quoteId))).not.toBeNull();
        expect(await uow.run((s) => s.quotes.purgeExpired(at(10), 2))).toBe(2);
        expect(await uow.run((s) => s.quotes.purgeExpired(at(10), 2))).toBe(1);
        expect(await uow.run((s) => s.quotes.purgeExpired(at(10), 2))).toBe(0);
      }));
  });
}
