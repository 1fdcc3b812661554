import { describe, expect, it } from 'vitest';
import type { PaymentIdentifierRecord } from '../../src/ports/payment-identifier-store.js';
import { at, OTHER, payment, WALLET } from '../support/fixtures.js';
import { withUow, type UowFactory } from './uow-factory.js';

const record = (paymentId: string, over: Partial<PaymentIdentifierRecord> = {}): PaymentIdentifierRecord => ({
  id: 'pay_7d5d747be160e280504c099d984bcfe0',
  payer: WALLET,
  requestHash: 'a'.repeat(64),
  paymentId,
  createdAt: at(0),
  ...over,
});

export function paymentIdentifierStoreContract(name: string, make: UowFactory) {
  describe(`PaymentIdentifierStore contract: ${name}`, () => {
    it('binds an id to its payment once; concurrent claims of one id: one wins, the others get it', () =>
      withUow(make, async (uow) => {
        const payments = Array.from({ length: 10 }, () => payment());
        for (const p of payments) await uow.run((s) => s.payments.claim(p));
        const claims = await Promise.all(payments.map((p, i) => uow.run((s) => s.paymentIds.claim(record(p.paymentId, { payer: i % 2 ? WALLET : OTHER })))));
        expect(claims.filter((c) => c.claimed)).toHaveLength(1);
        const winner = (await uow.run((s) => s.paymentIds.find(record('').id)))!.record;
        expect(payments.map((p) => p.paymentId)).toContain(winner.paymentId);
        for (const c of claims) if (!c.claimed) expect(c.existing).toEqual(winner);
        // ids are exact: another id (even differing only in case) is another claim
        const p = payments[0]!;
        expect((await uow.run((s) => s.paymentIds.claim(record(p.paymentId, { id: record('').id.toUpperCase() })))).claimed).toBe(true);
      }));

    it('finds the record exactly, with the response stored with its payment once there is one', () =>
      withUow(make, async (uow) => {
        const p = payment();
        await uow.run((s) => s.payments.claim(p));
        const r = record(p.paymentId, { id: 'order_0123456789-abcdef_XYZ', payer: OTHER, createdAt: at(1_234) });
        expect(await uow.run((s) => s.paymentIds.find(r.id))).toBeNull();
        await uow.run((s) => s.paymentIds.claim(r));
        expect(await uow.run((s) => s.paymentIds.find(r.id))).toEqual({ record: r, response: null });
        const response = { status: 200, body: { success: true, data: { tokensReceived: '1.5' } }, headers: {} };
        await uow.run((s) => s.payments.saveResponse(p.paymentId, response));
        expect(await uow.run((s) => s.paymentIds.find(r.id))).toEqual({ record: r, response });
        // and from its payment: the id it was made with, or null when the client gave none
        expect(await uow.run((s) => s.paymentIds.findByPayment(p.paymentId))).toEqual(r);
        const plain = payment();
        await uow.run((s) => s.payments.claim(plain));
        expect(await uow.run((s) => s.paymentIds.findByPayment(plain.paymentId))).toBeNull();
      }));

    it('is stored with its payment: no payment, no id; a rolled-back claim leaves nothing', () =>
      withUow(make, async (uow) => {
        await expect(uow.run((s) => s.paymentIds.claim(record('pay_missing')))).rejects.toThrow();
        const p = payment();
        await expect(
          uow.transaction(async (s) => {
            await s.payments.claim(p);
            await s.paymentIds.claim(record(p.paymentId));
            throw new Error('abort');
          }),
        ).rejects.toThrow('abort');
        expect(await uow.run((s) => s.paymentIds.find(record('').id))).toBeNull();
        expect(await uow.run((s) => s.payments.get(p.paymentId))).toBeNull();
      }));
  });
}
