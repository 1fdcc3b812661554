/**
 * The store of held authorizations (docs/decisions/0067): one holder per (network, asset, wallet,
 * nonce), taken by a compare-and-set the store enforces — of racing takers with the same expected
 * holder (none, or the same one) exactly one wins, also from concurrent transactions; a take in a
 * transaction that rolls back leaves nothing.
 */
import { describe, expect, it } from 'vitest';
import { PRODUCTION, TESTNET } from '../../src/domain/network.js';
import type { HeldAuthorizationKey, Holder } from '../../src/ports/held-authorization-store.js';
import { withUow, type UowFactory } from './uow-factory.js';

const key = (over: Partial<HeldAuthorizationKey> = {}): HeldAuthorizationKey => ({
  network: TESTNET,
  asset: 'USDC',
  wallet: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
  nonce: `0x${'ab'.repeat(32)}`,
  ...over,
});
const order = (id: string): Holder => ({ kind: 'order', id });
const payment = (id: string): Holder => ({ kind: 'payment', id });

export function heldAuthorizationStoreContract(name: string, make: UowFactory) {
  describe(`HeldAuthorizationStore contract: ${name}`, () => {
    it('one holder per authorization: the first insert wins, a take from the wrong holder fails, from the right one succeeds', () =>
      withUow(make, async (uow) => {
        expect(await uow.run((s) => s.heldAuthorizations.holderOf(key()))).toBeNull();
        expect(await uow.transaction((s) => s.heldAuthorizations.take(key(), payment('pay_1'), null))).toBe(true);
        expect(await uow.transaction((s) => s.heldAuthorizations.take(key(), payment('pay_2'), null))).toBe(false);
        expect(await uow.run((s) => s.heldAuthorizations.holderOf(key()))).toEqual(payment('pay_1'));
        expect(await uow.transaction((s) => s.heldAuthorizations.take(key(), order('ord_1'), payment('pay_2')))).toBe(false);
        expect(await uow.transaction((s) => s.heldAuthorizations.take(key(), order('ord_1'), order('pay_1')))).toBe(false); // the kind counts too
        expect(await uow.transaction((s) => s.heldAuthorizations.take(key(), order('ord_1'), payment('pay_1')))).toBe(true);
        expect(await uow.run((s) => s.heldAuthorizations.holderOf(key()))).toEqual(order('ord_1'));
        // Another network, asset, wallet or nonce is another authorization.
        for (const other of [key({ network: PRODUCTION }), key({ asset: 'tok_X' }), key({ wallet: '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc' }), key({ nonce: `0x${'cd'.repeat(32)}` })]) {
          expect(await uow.run((s) => s.heldAuthorizations.holderOf(other))).toBeNull();
          expect(await uow.transaction((s) => s.heldAuthorizations.take(other, order('ord_2'), null))).toBe(true);
        }
        expect(await uow.run((s) => s.heldAuthorizations.holderOf(key()))).toEqual(order('ord_1'));
      }));

    it('of concurrent transactions that each found it free, exactly one takes it; of concurrent takes from one holder, exactly one wins', () =>
      withUow(make, async (uow) => {
        const racers = Array.from({ length: 6 }, (_, i) => i);
        const inserted = await Promise.all(
          racers.map((i) =>
            uow
              .transaction(async (s) => {
                if ((await s.heldAuthorizations.holderOf(key())) !== null) return false;
                await new Promise((r) => setTimeout(r, 5)); // all of them between the look and the take
                return s.heldAuthorizations.take(key(), payment(`pay_${i}`), null);
              })
              .catch(() => false),
          ),
        );
        expect(inserted.filter(Boolean)).toHaveLength(1);
        const first = (await uow.run((s) => s.heldAuthorizations.holderOf(key())))!;
        expect(first).toEqual(payment(`pay_${inserted.indexOf(true)}`));
        const taken = await Promise.all(racers.map((i) => uow.transaction((s) => s.heldAuthorizations.take(key(), order(`ord_${i}`), first)).catch(() => false)));
        expect(taken.filter(Boolean)).toHaveLength(1);
        expect(await uow.run((s) => s.heldAuthorizations.holderOf(key()))).toEqual(order(`ord_${taken.indexOf(true)}`));
      }));

    it('a take in a transaction that rolls back leaves the holder as it was', () =>
      withUow(make, async (uow) => {
        await expect(
          uow.transaction(async (s) => {
            await s.heldAuthorizations.take(key(), payment('pay_1'), null);
            throw new Error('rolled back');
          }),
        ).rejects.toThrow('rolled back');
        expect(await uow.run((s) => s.heldAuthorizations.holderOf(key()))).toBeNull();
        await uow.transaction((s) => s.heldAuthorizations.take(key(), payment('pay_1'), null));
        await expect(
          uow.transaction(async (s) => {
            await s.heldAuthorizations.take(key(), order('ord_1'), payment('pay_1'));
            throw new Error('rolled back');
          }),
        ).rejects.toThrow('rolled back');
        expect(await uow.run((s) => s.heldAuthorizations.holderOf(key()))).toEqual(payment('pay_1'));
      }));
  });
}
