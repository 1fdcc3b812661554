import { describe, expect, it } from 'vitest';
import { transitionPayout } from '../../src/domain/payout.js';
import { at, payout } from '../support/fixtures.js';
import { withUow, type UowFactory } from './uow-factory.js';

export function payoutStoreContract(name: string, make: UowFactory) {
  describe(`PayoutStore contract: ${name}`, () => {
    it('queues a payout once per source, exactly', () =>
      withUow(make, async (uow) => {
        const p = payout({ amount: 10n ** 20n + 1n });
        expect(await uow.transaction((s) => s.payouts.enqueue(p))).toEqual(p);
        const again = await uow.transaction((s) => s.payouts.enqueue(payout({ sourceId: p.sourceId })));
        expect(again).toEqual(p);
        expect(await uow.run((s) => s.payouts.get(p.payoutId))).toEqual(p);
        expect(await uow.run((s) => s.payouts.get('pout_missing'))).toBeNull();
      }));

    it('adds a payout for a new source; one for a known source fails its transaction, with nothing of it left', () =>
      withUow(make, async (uow) => {
        const p = payout();
        await uow.transaction((s) => s.payouts.add(p));
        expect(await uow.run((s) => s.payouts.get(p.payoutId))).toEqual(p);
        const other = payout({ sourceId: 'src_other' });
        const twice = payout({ sourceId: p.sourceId });
        await expect(
          uow.transaction(async (s) => {
            await s.payouts.add(other);
            await s.payouts.add(twice);
          }),
        ).rejects.toThrow();
        expect(await uow.run((s) => s.payouts.get(other.payoutId))).toBeNull();
        expect(await uow.run((s) => s.payouts.get(twice.payoutId))).toBeNull();
        expect(await uow.run((s) => s.payouts.findBySource(p.sourceId))).toEqual(p);
      }));

    it('moves payouts whose loss fails their transaction: all of them, or none when one is lost', () =>
      withUow(make, async (uow) => {
        const [a, b] = [payout(), payout()];
        await uow.transaction(async (s) => {
          await s.payouts.add(a);
          await s.payouts.add(b);
        });
        const sent = (p: typeof a) => transitionPayout(p, 'SENT', at(1), { txHash: `0x${p.payoutId}`, rawTx: '0xraw', attempts: 1, nextAttemptAt: at(1_001) });
        const lost = () => new Error('moved elsewhere');
        await uow.run((s) => s.payouts.update(sent(b), 'PENDING')); // b moves on its own
        await expect(
          uow.transaction(async (s) => {
            await s.payouts.move(sent(a), 'PENDING', lost);
            await s.payouts.move(sent(b), 'PENDING', lost);
          }),
        ).rejects.toThrow('moved elsewhere');
        expect(await uow.run((s) => s.payouts.get(a.payoutId))).toEqual(a);
        await uow.transaction(async (s) => {
          await s.payouts.move(sent(a), 'PENDING', lost);
          await s.payouts.move(transitionPayout(sent(b), 'CONFIRMED', at(2)), 'SENT', lost);
        });
        expect(await uow.run((s) => s.payouts.get(a.payoutId))).toEqual(sent(a));
        expect((await uow.run((s) => s.payouts.get(b.payoutId)))!.state).toBe('CONFIRMED');
        // added and moved in one transaction: the move finds the row its unit added
        const c = payout();
        await uow.transaction(async (s) => {
          await s.payouts.add(c);
          await s.payouts.move(sent(c), 'PENDING', lost);
        });
        expect(await uow.run((s) => s.payouts.get(c.payoutId))).toEqual(sent(c));
      }));

    it('keeps the asset a payout pays back in', () =>
      withUow(make, async (uow) => {
        const p = payout({ asset: 'EURC', amount: 2_269_684n, reason: 'refund' });
        await uow.transaction((s) => s.payouts.enqueue(p));
        expect(await uow.run((s) => s.payouts.get(p.payoutId))).toEqual(p);
      }));

    it('moves a payout by compare-and-set, recording hash and raw transaction', () =>
      withUow(make, async (uow) => {
        const p = payout();
        await uow.transaction((s) => s.payouts.enqueue(p));
        const sent = transitionPayout(p, 'SENT', at(1), { txHash: '0xhash', rawTx: '0xraw', attempts: 1, nextAttemptAt: at(1_001) });
        const results = await Promise.all(Array.from({ length: 5 }, () => uow.run((s) => s.payouts.update(sent, 'PENDING'))));
        expect(results.filter(Boolean)).toHaveLength(1);
        expect(await uow.run((s) => s.payouts.get(p.payoutId))).toEqual(sent);
      }));

    it('lists due PENDING and SENT payouts, oldest first', () =>
      withUow(make, async (uow) => {
        const a = payout({ createdAt: at(0), nextAttemptAt: at(0) });
        const b = payout({ createdAt: at(1), nextAttemptAt: at(10_000) });
        const c = payout({ createdAt: at(2), nextAttemptAt: at(0), state: 'SENT', txHash: '0x1', rawTx: '0x2' });
        const d = payout({ createdAt: at(3), nextAttemptAt: at(0), state: 'CONFIRMED' });
        for (const p of [c, a, b, d]) await uow.transaction((s) => s.payouts.enqueue(p));
        expect((await uow.run((s) => s.payouts.due(at(5_000), 10))).map((p) => p.payoutId)).toEqual([a.payoutId, c.payoutId]);
        expect(await uow.run((s) => s.payouts.due(at(5_000), 1))).toHaveLength(1);
      }));

    it('tells its backlog: PENDING and SENT, due or not, and the oldest of them', () =>
      withUow(make, async (uow) => {
        expect(await uow.run((s) => s.payouts.backlog())).toEqual({ pending: 0, sent: 0, oldestCreatedAt: null });
        const a = payout({ createdAt: at(0), state: 'CONFIRMED' });
        const b = payout({ createdAt: at(5), nextAttemptAt: at(10_000) });
        const c = payout({ createdAt: at(2), state: 'SENT', txHash: '0x1', rawTx: '0x2' });
        const d = payout({ createdAt: at(7) });
        for (const p of [a, b, c, d]) await uow.transaction((s) => s.payouts.enqueue(p));
        expect(await uow.run((s) => s.payouts.backlog())).toEqual({ pending: 2, sent: 1, oldestCreatedAt: at(2) });
      }));
  });
}
