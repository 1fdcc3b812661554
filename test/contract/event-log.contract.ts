import { describe, expect, it } from 'vitest';
import { PRODUCTION, TESTNET } from '../../src/domain/network.js';
import { event } from '../support/fixtures.js';
import { withUow, type UowFactory } from './uow-factory.js';

export function eventLogContract(name: string, make: UowFactory) {
  describe(`EventLog contract: ${name}`, () => {
    it('appends several at once with consecutive ids in their order, between single appends, and nothing when the transaction fails', () =>
      withUow(make, async (uow) => {
        await uow.transaction((s) => s.events.append(event({ tokenId: 'tok_A' })));
        const [first] = await uow.run((s) => s.events.readAfter(0, {}, 10));
        if (!first) throw new Error('the first event was not stored');
        const many = [
          event({ tokenId: 'tok_A', type: 'trade.executed', data: { trade: { big: '1000000000000000000000000' } } }),
          event({ tokenId: null, network: PRODUCTION, type: 'payout.sent', data: { n: 2 } }),
          event({ tokenId: 'tok_B', type: 'delivery.sent', data: { n: 3 } }),
        ];
        await uow.transaction((s) => s.events.appendAll(many));
        const stored = await uow.run((s) => s.events.readAfter(first.id, {}, 10));
        expect(stored).toEqual(many.map((e, i) => ({ ...e, id: first.id + 1 + i })));
        await uow.transaction((s) => s.events.appendAll([event({ tokenId: 'tok_C' })]));
        expect(await uow.run((s) => s.events.readAfter(first.id + 3, {}, 10))).toMatchObject([{ id: first.id + 4, tokenId: 'tok_C' }]);
        await uow.run((s) => s.events.appendAll([]));
        expect(await uow.run((s) => s.events.lastId())).toBe(first.id + 4);
        await expect(
          uow.transaction(async (s) => {
            await s.events.appendAll([event({ tokenId: 'tok_D' }), event({ tokenId: 'tok_D' })]);
            throw new Error('rolled back');
          }),
        ).rejects.toThrow('rolled back');
        expect(await uow.run((s) => s.events.readAfter(0, {}, 100))).toEqual([first, ...stored, expect.objectContaining({ id: first.id + 4 })]);
        await uow.transaction((s) => s.events.append(event({ tokenId: 'tok_E' })));
        expect(await uow.run((s) => s.events.lastId())).toBe(first.id + 5); // no gap
      }));

    it('appends with ids 1, 2, 3… and reads after an id with filters and a limit', () =>
      withUow(make, async (uow) => {
        expect(await uow.run((s) => s.events.lastId())).toBe(0);
        const appended = [
          event({ tokenId: 'tok_A' }),
          event({ tokenId: 'tok_B', type: 'trade.executed', data: { big: '1000000000000000000000000', nested: { a: [1] } } }),
          event({ tokenId: null, network: PRODUCTION, type: 'payout.sent' }),
          event({ tokenId: 'tok_A', type: 'token.graduated' }),
        ];
        for (const e of appended) await uow.transaction((s) => s.events.append(e));
        const stored = appended.map((e, i) => ({ ...e, id: i + 1 }));
        expect(await uow.run((s) => s.events.lastId())).toBe(4);
        expect(await uow.run((s) => s.events.lastId('tok_A'))).toBe(4);
        expect(await uow.run((s) => s.events.lastId('tok_B'))).toBe(2);
        expect(await uow.run((s) => s.events.lastId('tok_none'))).toBe(0);
        expect(await uow.run((s) => s.events.readAfter(0, {}, 100))).toEqual(stored);
        expect((await uow.run((s) => s.events.readAfter(1, {}, 2))).map((e) => e.id)).toEqual([2, 3]);
        expect((await uow.run((s) => s.events.readAfter(0, { tokenId: 'tok_A' }, 100))).map((e) => e.id)).toEqual([1, 4]);
        expect((await uow.run((s) => s.events.readAfter(0, { network: TESTNET }, 100))).map((e) => e.id)).toEqual([1, 2, 4]);
      }));

    it('withholds a hidden comment: its comment.posted events take the hidden view (in the transaction), naming their payments; nothing else changes', () =>
      withUow(make, async (uow) => {
        const posted = (commentId: string, tokenId: string, paymentId: string | null) =>
          event({ tokenId, type: 'comment.posted', data: { comment: { commentId, text: `said by ${commentId}` }, paymentId } });
        const appended = [
          posted('cmt_1', 'tok_A', 'pay_1'),
          posted('cmt_10', 'tok_A', 'pay_10'), // an id the first one's is a prefix of
          posted('cmt_1', 'tok_B', 'pay_B'), // another token's (never so in the service, kept apart all the same)
          event({ tokenId: 'tok_A', type: 'comment.hidden', data: { comment: { commentId: 'cmt_1', text: null } } }),
          posted('cmt_2', 'tok_A', null),
        ];
        await uow.transaction((s) => s.events.appendAll(appended));
        const hidden = { commentId: 'cmt_1', text: null, hidden: true };
        await expect(
          uow.transaction(async (s) => {
            await s.events.withholdComment('tok_A', 'cmt_1', hidden);
            throw new Error('rolled back');
          }),
        ).rejects.toThrow('rolled back');
        expect(JSON.stringify(await uow.run((s) => s.events.readAfter(0, {}, 10)))).toContain('said by cmt_1"');
        expect(await uow.transaction((s) => s.events.withholdComment('tok_A', 'cmt_1', hidden))).toEqual(['pay_1']);
        expect(await uow.transaction((s) => s.events.withholdComment('tok_A', 'cmt_2', { commentId: 'cmt_2', text: null }))).toEqual([]);
        const stored = await uow.run((s) => s.events.readAfter(0, {}, 10));
        expect(stored.map((e) => e.data)).toEqual([
          { comment: hidden, paymentId: 'pay_1' },
          appended[1]!.data,
          appended[2]!.data,
          appended[3]!.data,
          { comment: { commentId: 'cmt_2', text: null }, paymentId: null },
        ]);
        expect(stored.map((e) => e.id)).toEqual([1, 2, 3, 4, 5]);
      }));

    it('gives concurrent appenders distinct ids without gaps', () =>
      withUow(make, async (uow) => {
        await Promise.all(Array.from({ length: 25 }, () => uow.transaction((s) => s.events.append(event()))));
        const ids = (await uow.run((s) => s.events.readAfter(0, {}, 100))).map((e) => e.id);
        expect(ids).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
      }));
  });
}
