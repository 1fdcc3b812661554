import { describe, expect, it } from 'vitest';
import { newDelivery, type Delivery } from '../../src/domain/delivery.js';
import { newDeliveryBatch, transitionDeliveryBatch } from '../../src/domain/delivery-batch.js';
import { TESTNET } from '../../src/domain/network.js';
import { transitionOutbox } from '../../src/domain/outbox.js';
import { at, id, WALLET } from '../support/fixtures.js';
import { withUow, type UowFactory } from './uow-factory.js';

/** The delivery outbox's batch side (docs/decisions/0035): batches, and deliveries SENT in one. */
export function deliveryBatchStoreContract(name: string, make: UowFactory) {
  describe(`DeliveryBatchStore and DeliveryStore's batches contract: ${name}`, () => {
    const delivery = (ms = 0) =>
      newDelivery({ deliveryId: id('dlv'), network: TESTNET, tokenId: 'tok_a', wallet: WALLET, amount: 10n ** 24n + 1n, sourceId: id('trd'), now: at(ms) });
    const batch = (size: number, ms = 0) =>
      newDeliveryBatch({ batchId: id('dlb'), network: TESTNET, txHash: `0x${'ab'.repeat(32)}`, rawTx: `0x02${'cd'.repeat(150)}`, size, now: at(ms), nextAttemptAt: at(ms + 1_000) });
    const inBatch = (d: Delivery, batchId: string, ms: number): Delivery => ({
      ...transitionOutbox(d, 'SENT', at(ms), { txHash: `0x${'ab'.repeat(32)}`, rawTx: null, attempts: 1, nextAttemptAt: at(ms + 1_000) }),
      batchId,
    });

    it('records a batch with its signed transaction, reads it back, and moves it by compare-and-set', () =>
      withUow(make, async (uow) => {
        const b = batch(3);
        await uow.transaction((s) => s.deliveryBatches.record(b));
        expect(await uow.run((s) => s.deliveryBatches.get(b.batchId))).toEqual(b);
        expect(await uow.run((s) => s.deliveryBatches.get('dlb_missing'))).toBeNull();
        const later = transitionDeliveryBatch(b, 'SENT', at(5), at(6_000));
        expect(await uow.run((s) => s.deliveryBatches.update(later, 'SENT'))).toBe(true);
        const done = transitionDeliveryBatch(later, 'CONFIRMED', at(7));
        expect(await uow.run((s) => s.deliveryBatches.update(done, 'SENT'))).toBe(true);
        expect(await uow.run((s) => s.deliveryBatches.update(transitionDeliveryBatch(later, 'REVERTED', at(8)), 'SENT'))).toBe(false);
        expect(await uow.run((s) => s.deliveryBatches.get(b.batchId))).toEqual(done);
      }));

    it('a batch recorded in a transaction that fails is not there', () =>
      withUow(make, async (uow) => {
        const b = batch(2);
        await expect(
          uow.transaction(async (s) => {
            await s.deliveryBatches.record(b);
            throw new Error('rolled back');
          }),
        ).rejects.toThrow('rolled back');
        expect(await uow.run((s) => s.deliveryBatches.get(b.batchId))).toBeNull();
      }));

    it('due: SENT batches whose time has come, oldest first, at most `limit`', () =>
      withUow(make, async (uow) => {
        const [a, b, c, d] = [batch(2, 0), batch(2, 10), batch(2, 20), batch(2, 30)];
        for (const x of [c, a, d, b]) await uow.transaction((s) => s.deliveryBatches.record(x));
        await uow.run((s) => s.deliveryBatches.update(transitionDeliveryBatch(d, 'CONFIRMED', at(40)), 'SENT'));
        const due = await uow.run((s) => s.deliveryBatches.due(at(1_015), 10));
        expect(due.map((x) => x.batchId)).toEqual([a.batchId, b.batchId]);
        expect((await uow.run((s) => s.deliveryBatches.due(at(5_000), 2))).map((x) => x.batchId)).toEqual([a.batchId, b.batchId]);
        expect((await uow.run((s) => s.deliveryBatches.due(at(5_000), 10))).map((x) => x.batchId)).toEqual([a.batchId, b.batchId, c.batchId]);
      }));

    it("a delivery SENT in a batch is its batch's: left out of the outbox's due, found by inBatch, and keeps its batch id", () =>
      withUow(make, async (uow) => {
        const [x, y, z] = [delivery(0), delivery(1), delivery(2)];
        for (const d of [x, y, z]) await uow.transaction((s) => s.deliveries.enqueue(d));
        expect(await uow.run((s) => s.deliveries.get(x.deliveryId))).toEqual(x);
        expect(x.batchId).toBeNull();
        const b = batch(2, 10);
        await uow.transaction(async (s) => {
          await s.deliveryBatches.record(b);
          expect(await s.deliveries.update(inBatch(y, b.batchId, 10), 'PENDING')).toBe(true);
          expect(await s.deliveries.update(inBatch(x, b.batchId, 10), 'PENDING')).toBe(true);
        });
        expect((await uow.run((s) => s.deliveries.due(at(60_000), 10))).map((d) => d.deliveryId)).toEqual([z.deliveryId]);
        const members = await uow.run((s) => s.deliveries.inBatch(b.batchId));
        expect(members.map((d) => d.deliveryId)).toEqual([x.deliveryId, y.deliveryId]);
        expect(members[0]).toEqual(inBatch(x, b.batchId, 10));
        expect(await uow.run((s) => s.deliveries.inBatch('dlb_other'))).toEqual([]);
        // Back to PENDING without its batch (the batch reverted): the outbox's again.
        const back = { ...transitionOutbox(members[0]!, 'PENDING', at(20), { txHash: null, lastError: 'batch reverted', nextAttemptAt: at(20) }), batchId: null };
        expect(await uow.run((s) => s.deliveries.update(back, 'SENT'))).toBe(true);
        expect((await uow.run((s) => s.deliveries.due(at(60_000), 10))).map((d) => d.deliveryId)).toEqual([x.deliveryId, z.deliveryId]);
        expect(await uow.run((s) => s.deliveries.get(x.deliveryId))).toEqual(back);
      }));
  });
}
