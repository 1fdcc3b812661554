import { describe, expect, it } from 'vitest';
import { TESTNET } from '../../src/domain/network.js';
import { event, payment, payout, position, token, trade, WALLET } from '../support/fixtures.js';
import { withUow, type UowFactory } from './uow-factory.js';

export function unitOfWorkContract(name: string, make: UowFactory) {
  describe(`UnitOfWork contract: ${name}`, () => {
    it('a transaction that throws leaves nothing behind, and ids continue without a gap', () =>
      withUow(make, async (uow) => {
        const t = token();
        const p = payment();
        const po = payout();
        await uow.transaction((s) => s.events.append(event()));
        expect(await uow.run((s) => s.events.lastId())).toBe(1);
        await expect(
          uow.transaction(async (s) => {
            await s.tokens.insert(t);
            await s.trades.record(trade({ tokenId: t.tokenId }));
            await s.positions.save(position({ tokenId: t.tokenId }));
            await s.payments.claim(p);
            await s.payouts.enqueue(po);
            await s.events.append(event());
            throw new Error('crash inside the transaction');
          }),
        ).rejects.toThrow('crash inside the transaction');
        expect(await uow.run((s) => s.tokens.get(t.tokenId))).toBeNull();
        expect((await uow.run((s) => s.trades.listByToken(t.tokenId, { limit: 10 }))).items).toEqual([]);
        expect(await uow.run((s) => s.positions.get(TESTNET, WALLET, t.tokenId))).toBeNull();
        expect(await uow.run((s) => s.payments.get(p.paymentId))).toBeNull();
        expect(await uow.run((s) => s.payouts.get(po.payoutId))).toBeNull();
        expect(await uow.run((s) => s.events.lastId())).toBe(1);
        await uow.transaction((s) => s.events.append(event()));
        expect(await uow.run((s) => s.events.lastId())).toBe(2);
        // the claim can be made again: nothing of the failed transaction holds it
        expect((await uow.run((s) => s.payments.claim(p))).claimed).toBe(true);
      }));

    it('serialises read-modify-write of one token under getForUpdate', () =>
      withUow(make, async (uow) => {
        const t = token();
        await uow.transaction((s) => s.tokens.insert(t));
        await Promise.all(
          Array.from({ length: 30 }, () =>
            uow.transaction(async (s) => {
              const current = (await s.tokens.getForUpdate(t.tokenId))!;
              await new Promise((r) => setTimeout(r, 1));
              await s.tokens.update({ ...current, curve: { ...current.curve, tokensSold: current.curve.tokensSold + 1n } });
            }),
          ),
        );
        expect((await uow.run((s) => s.tokens.get(t.tokenId)))!.curve.tokensSold).toBe(30n);
      }));

    it('a transaction sees its own writes', () =>
      withUow(make, async (uow) => {
        const t = token();
        await uow.transaction(async (s) => {
          await s.tokens.insert(t);
          expect(await s.tokens.get(t.tokenId)).toEqual(t);
          await s.positions.save(position({ tokenId: t.tokenId }));
          expect(await s.positions.countHolders(t.tokenId)).toBe(1);
        });
      }));

    it('writes with nothing to read in between (held and sent together where the store can): each stands, the last change to a row wins, a read sees them', () =>
      withUow(make, async (uow) => {
        const t = token();
        await uow.transaction((s) => s.tokens.insert(t));
        const sold = (n: bigint) => ({ ...t, curve: { ...t.curve, tokensSold: n } });
        const p = position({ tokenId: t.tokenId });
        const tr = trade({ tokenId: t.tokenId });
        const po = payout({ sourceId: tr.tradeId });
        await uow.transaction(async (s) => {
          await s.tokens.update(sold(1n));
          await s.positions.save({ ...p, balance: 1n });
          await s.trades.record(tr);
          await s.events.appendAll([event({ tokenId: t.tokenId }), event({ tokenId: t.tokenId })]);
          await s.tokens.update(sold(2n)); // the same row again
          await s.positions.save({ ...p, balance: 2n });
          await s.payouts.add(po);
          await s.events.append(event({ tokenId: t.tokenId }));
          expect((await s.tokens.get(t.tokenId))!.curve.tokensSold).toBe(2n);
          await s.tokens.update(sold(3n));
        });
        expect((await uow.run((s) => s.tokens.get(t.tokenId)))!.curve.tokensSold).toBe(3n);
        expect((await uow.run((s) => s.positions.get(TESTNET, WALLET, t.tokenId)))!.balance).toBe(2n);
        expect((await uow.run((s) => s.trades.listByToken(t.tokenId, { limit: 10 }))).items).toEqual([tr]);
        expect(await uow.run((s) => s.payouts.findBySource(tr.tradeId))).toEqual(po);
        expect((await uow.run((s) => s.events.readAfter(0, { tokenId: t.tokenId }, 10))).map((e) => e.id)).toEqual([1, 2, 3]);
      }));

    it('writes made at once (a Promise.all) to one row stand in the order they were made', () =>
      withUow(make, async (uow) => {
        const t = token();
        await uow.transaction((s) => s.tokens.insert(t));
        const sold = (n: bigint) => ({ ...t, curve: { ...t.curve, tokensSold: n } });
        const p = position({ tokenId: t.tokenId });
        await uow.transaction(async (s) => {
          await s.tokens.update(sold(1n));
          await Promise.all([s.tokens.update(sold(2n)), s.positions.save({ ...p, balance: 1n }), s.tokens.update(sold(3n)), s.positions.save({ ...p, balance: 2n })]);
        });
        expect((await uow.run((s) => s.tokens.get(t.tokenId)))!.curve.tokensSold).toBe(3n);
        expect((await uow.run((s) => s.positions.get(TESTNET, WALLET, t.tokenId)))!.balance).toBe(2n);
      }));

    it('a unit that writes more than one statement can bind: every write stands', () =>
      withUow(make, async (uow) => {
        const t = token();
        await uow.transaction((s) => s.tokens.insert(t));
        const since = new Date(0);
        await uow.transaction(async (s) => {
          for (let i = 0; i < 3_000; i++) await s.trades.record(trade({ tokenId: t.tokenId, usdAmount: 1n })); // 36,000 parameters
        });
        expect(await uow.run((s) => s.trades.activitySince(t.tokenId, since))).toMatchObject({ trades: 3_000 });
      }));

    it('a write that fails after others fails its transaction, and none of them stands', () =>
      withUow(make, async (uow) => {
        const t = token();
        const missing = token();
        await uow.transaction((s) => s.tokens.insert(t));
        const tr = trade({ tokenId: t.tokenId });
        await expect(
          uow.transaction(async (s) => {
            await s.trades.record(tr);
            await s.positions.save(position({ tokenId: t.tokenId }));
            await s.events.append(event({ tokenId: t.tokenId }));
            await s.tokens.update(missing); // no such token
          }),
        ).rejects.toThrow(`unknown token ${missing.tokenId}`);
        expect((await uow.run((s) => s.trades.listByToken(t.tokenId, { limit: 10 }))).items).toEqual([]);
        expect(await uow.run((s) => s.positions.get(TESTNET, WALLET, t.tokenId))).toBeNull();
        expect(await uow.run((s) => s.events.lastId())).toBe(0);
      }));
  });
}
