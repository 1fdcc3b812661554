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
        await uow.transaction((s) => s.events.append(event())).then((e) => expect(e.id).toBe(1));
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
        expect((await uow.transaction((s) => s.events.append(event()))).id).toBe(2);
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
  });
}
