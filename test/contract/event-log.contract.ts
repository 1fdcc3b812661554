import { describe, expect, it } from 'vitest';
import { PRODUCTION, TESTNET } from '../../src/domain/network.js';
import { event } from '../support/fixtures.js';
import { withUow, type UowFactory } from './uow-factory.js';

export function eventLogContract(name: string, make: UowFactory) {
  describe(`EventLog contract: ${name}`, () => {
    it('appends with ids 1, 2, 3… and reads after an id with filters and a limit', () =>
      withUow(make, async (uow) => {
        expect(await uow.run((s) => s.events.lastId())).toBe(0);
        const stored = [];
        for (const e of [
          event({ tokenId: 'tok_A' }),
          event({ tokenId: 'tok_B', type: 'trade.executed', data: { big: '1000000000000000000000000', nested: { a: [1] } } }),
          event({ tokenId: null, network: PRODUCTION, type: 'payout.sent' }),
          event({ tokenId: 'tok_A', type: 'token.graduated' }),
        ]) {
          stored.push(await uow.transaction((s) => s.events.append(e)));
        }
        expect(stored.map((e) => e.id)).toEqual([1, 2, 3, 4]);
        expect(await uow.run((s) => s.events.lastId())).toBe(4);
        expect(await uow.run((s) => s.events.lastId('tok_A'))).toBe(4);
        expect(await uow.run((s) => s.events.lastId('tok_B'))).toBe(2);
        expect(await uow.run((s) => s.events.lastId('tok_none'))).toBe(0);
        expect(await uow.run((s) => s.events.readAfter(0, {}, 100))).toEqual(stored);
        expect((await uow.run((s) => s.events.readAfter(1, {}, 2))).map((e) => e.id)).toEqual([2, 3]);
        expect((await uow.run((s) => s.events.readAfter(0, { tokenId: 'tok_A' }, 100))).map((e) => e.id)).toEqual([1, 4]);
        expect((await uow.run((s) => s.events.readAfter(0, { network: TESTNET }, 100))).map((e) => e.id)).toEqual([1, 2, 4]);
      }));

    it('gives concurrent appenders distinct ids without gaps', () =>
      withUow(make, async (uow) => {
        const ids = await Promise.all(Array.from({ length: 25 }, () => uow.transaction((s) => s.events.append(event())).then((e) => e.id)));
        expect([...ids].sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
      }));
  });
}
