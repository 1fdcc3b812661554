import { describe, expect, it } from 'vitest';
import { PRODUCTION, TESTNET } from '../../src/domain/network.js';
import { transitionPayment } from '../../src/domain/payment.js';
import { at, payment, token, WALLET } from '../support/fixtures.js';
import { withUow, type UowFactory } from './uow-factory.js';

export function paymentStoreContract(name: string, make: UowFactory) {
  describe(`PaymentStore contract: ${name}`, () => {
    it('claims a (network, payer, nonce) once; the loser gets the winner', () =>
      withUow(make, async (uow) => {
        const nonce = `0x${'ab'.repeat(32)}`;
        const claims = await Promise.all(
          Array.from({ length: 20 }, () => uow.run((s) => s.payments.claim(payment({ nonce })))),
        );
        const won = claims.filter((c) => c.claimed);
        expect(won).toHaveLength(1);
        const winner = (won[0] as { payment: { paymentId: string } }).payment.paymentId;
        for (const c of claims.filter((x) => !x.claimed)) expect((c as { existing: { paymentId: string } }).existing.paymentId).toBe(winner);
        // another network is another authorization
        expect((await uow.run((s) => s.payments.claim(payment({ nonce, network: PRODUCTION })))).claimed).toBe(true);
        // the same authorization in other letter case is the same claim
        expect((await uow.run((s) => s.payments.claim(payment({ nonce: nonce.toUpperCase().replace('0X', '0x'), payer: WALLET.toLowerCase() })))).claimed).toBe(false);
      }));

    it('stores a payment exactly and finds it by id and by nonce in any case', () =>
      withUow(make, async (uow) => {
        const p = payment({ amount: 10n ** 20n, input: { tokenId: 'tok_A', usdAmount: '5', nested: { ok: true } }, validBefore: 2n ** 40n });
        await uow.run((s) => s.payments.claim(p));
        expect(await uow.run((s) => s.payments.get(p.paymentId))).toEqual(p);
        expect(await uow.run((s) => s.payments.findByNonce(TESTNET, p.payer.toLowerCase(), p.nonce.toUpperCase().replace('0X', '0x')))).toEqual(p);
        expect(await uow.run((s) => s.payments.findByNonce(PRODUCTION, p.payer, p.nonce))).toBeNull();
        expect(await uow.run((s) => s.payments.get('pay_missing'))).toBeNull();
      }));

    it('stores the paying asset, its amount, the USD value and the quote it was priced at', () =>
      withUow(make, async (uow) => {
        const p = payment({ asset: 'EURC', amount: 925_926n, usdValue: 1_000_000n, quoteId: 'aqt_1', quotePrice: { mantissa: 10842n, scale: 4 } });
        await uow.run((s) => s.payments.claim(p));
        expect(await uow.run((s) => s.payments.get(p.paymentId))).toEqual(p);
      }));

    it('keeps the scheme a payment came by — an upto or batch-settlement one — through its moves; exact is the default, absent', () =>
      withUow(make, async (uow) => {
        const upto = payment({ scheme: 'upto', validBefore: 1_900_000_001n });
        const voucher = payment({ scheme: 'batch-settlement' });
        const exact = payment();
        for (const p of [upto, voucher, exact]) await uow.run((s) => s.payments.claim(p));
        expect(await uow.run((s) => s.payments.get(upto.paymentId))).toEqual(upto);
        expect(await uow.run((s) => s.payments.get(voucher.paymentId))).toEqual(voucher);
        expect(await uow.run((s) => s.payments.get(exact.paymentId))).not.toHaveProperty('scheme');
        const settling = transitionPayment(upto, 'SETTLING', at(1));
        await uow.run((s) => s.payments.update(settling, 'VERIFIED'));
        const [listed] = await uow.run((s) => s.payments.listByState('SETTLING', at(2), 10));
        expect(listed).toEqual(settling);
      }));

    it('moves a payment by compare-and-set on its state', () =>
      withUow(make, async (uow) => {
        const p = payment();
        await uow.run((s) => s.payments.claim(p));
        const settling = transitionPayment(p, 'SETTLING', at(1));
        expect(await uow.run((s) => s.payments.update(settling, 'VERIFIED'))).toBe(true);
        expect(await uow.run((s) => s.payments.update(settling, 'VERIFIED'))).toBe(false);
        const settled = transitionPayment(settling, 'SETTLED', at(2), { settlementTx: '0xabc' });
        const results = await Promise.all(Array.from({ length: 10 }, () => uow.run((s) => s.payments.update(settled, 'SETTLING'))));
        expect(results.filter(Boolean)).toHaveLength(1);
        expect(await uow.run((s) => s.payments.get(p.paymentId))).toEqual(settled);
      }));

    it('keeps the response a replay must get back', () =>
      withUow(make, async (uow) => {
        const p = payment();
        await uow.run((s) => s.payments.claim(p));
        expect(await uow.run((s) => s.payments.getResponse(p.paymentId))).toBeNull();
        const response = { status: 201, body: { success: true, data: { amount: '0.01', list: [1, 2] } }, headers: { 'PAYMENT-RESPONSE': 'e30=' } };
        await uow.run((s) => s.payments.saveResponse(p.paymentId, response));
        expect(await uow.run((s) => s.payments.getResponse(p.paymentId))).toEqual(response);
      }));

    it('stores the answer with the move that makes it, and nothing when the move is refused', () =>
      withUow(make, async (uow) => {
        const p = payment();
        await uow.run((s) => s.payments.claim(p));
        const settled = transitionPayment(transitionPayment(p, 'SETTLING', at(1)), 'SETTLED', at(2), { settlementTx: '0xabc' });
        const applied = transitionPayment(settled, 'APPLIED', at(3));
        const answer = { status: 200, body: { success: true, data: { tokensReceived: '1.5' } }, headers: {}, settlement: { success: true, transaction: '0xabc', network: p.network, payer: p.payer } };
        expect(await uow.run((s) => s.payments.update(applied, 'SETTLED', answer))).toBe(false); // still VERIFIED
        expect(await uow.run((s) => s.payments.getResponse(p.paymentId))).toBeNull();
        await uow.run((s) => s.payments.update(settled, 'VERIFIED'));
        expect(await uow.transaction((s) => s.payments.update(applied, 'SETTLED', answer))).toBe(true);
        expect(await uow.run((s) => s.payments.get(p.paymentId))).toEqual(applied);
        expect(await uow.run((s) => s.payments.getResponse(p.paymentId))).toEqual(answer);
      }));

    it('moves a payment whose loss fails its transaction: the answer stored with it, or the loser rolled back', () =>
      withUow(make, async (uow) => {
        const p = payment();
        const t = token();
        await uow.run((s) => s.payments.claim(p));
        const settled = transitionPayment(transitionPayment(p, 'SETTLING', at(1)), 'SETTLED', at(2), { settlementTx: '0xabc' });
        const applied = transitionPayment(settled, 'APPLIED', at(3));
        const answer = { status: 200, body: { success: true, data: { tokensReceived: '1.5' } }, headers: {}, settlement: { success: true, transaction: '0xabc', network: p.network, payer: p.payer } };
        const lost = () => new Error('lost the move');
        // still VERIFIED: the move is lost and what the transaction wrote beside it does not stand
        await expect(
          uow.transaction(async (s) => {
            await s.tokens.insert(t);
            await s.payments.move(applied, 'SETTLED', answer, lost);
          }),
        ).rejects.toThrow('lost the move');
        expect(await uow.run((s) => s.tokens.get(t.tokenId))).toBeNull();
        expect(await uow.run((s) => s.payments.get(p.paymentId))).toEqual(p);
        expect(await uow.run((s) => s.payments.getResponse(p.paymentId))).toBeNull();
        await uow.run((s) => s.payments.update(settled, 'VERIFIED'));
        await uow.transaction((s) => s.payments.move(applied, 'SETTLED', answer, lost));
        expect(await uow.run((s) => s.payments.get(p.paymentId))).toEqual(applied);
        expect(await uow.run((s) => s.payments.getResponse(p.paymentId))).toEqual(answer);
        // a second applier loses, whatever it wrote first
        await expect(uow.transaction((s) => s.payments.move(applied, 'SETTLED', undefined, lost))).rejects.toThrow('lost the move');
      }));

    it('lists payments in a state, last updated before a time, oldest first', () =>
      withUow(make, async (uow) => {
        const old = payment({ state: 'SETTLING', updatedAt: at(1_000) });
        const older = payment({ state: 'SETTLING', updatedAt: at(0) });
        const recent = payment({ state: 'SETTLING', updatedAt: at(60_000) });
        const other = payment({ state: 'SETTLED', updatedAt: at(0) });
        for (const p of [old, older, recent, other]) await uow.run((s) => s.payments.claim(p));
        const due = await uow.run((s) => s.payments.listByState('SETTLING', at(30_000), 10));
        expect(due.map((p) => p.paymentId)).toEqual([older.paymentId, old.paymentId]);
        expect(await uow.run((s) => s.payments.listByState('SETTLING', at(30_000), 1))).toHaveLength(1);
      }));
  });
}
