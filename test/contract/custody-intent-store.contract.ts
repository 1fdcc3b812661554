/**
 * The store of what is asked of custody's signer (docs/decisions/0031): one intent per kind and
 * payment, the latest ask standing; the signer's answer deletes only the ask it answered, so an
 * ask made again meanwhile (the transaction dropped since) is never lost; a rollback asks nothing.
 */
import { describe, expect, it } from 'vitest';
import { TESTNET } from '../../src/domain/network.js';
import type { CustodyIntent } from '../../src/ports/custody-intent-store.js';
import { at } from '../support/fixtures.js';
import { withUow, type UowFactory } from './uow-factory.js';

const intent = (paymentId: string, over: Partial<CustodyIntent> = {}): CustodyIntent => ({
  kind: 'pull',
  paymentId,
  network: TESTNET,
  tokenId: 'tok_X',
  request: '{"tokenId":"tok_X"}',
  replaces: null,
  requestedAt: at(0),
  ...over,
});

export function custodyIntentStoreContract(name: string, make: UowFactory) {
  describe(`CustodyIntentStore contract: ${name}`, () => {
    it('keeps one intent per kind and payment, the latest ask standing, oldest ask first', () =>
      withUow(make, async (uow) => {
        await uow.transaction((s) => s.intents.request(intent('pay_2', { requestedAt: at(5) })));
        await uow.transaction((s) => s.intents.request(intent('pay_1', { requestedAt: at(1) })));
        await uow.transaction((s) => s.intents.request(intent('pay_1', { kind: 'swap', requestedAt: at(9) })));
        const again = intent('pay_1', { replaces: `0x${'1a'.repeat(32)}`, requestedAt: at(7) });
        await uow.transaction((s) => s.intents.request(again));
        expect(await uow.run((s) => s.intents.open(10))).toEqual([intent('pay_2', { requestedAt: at(5) }), again, intent('pay_1', { kind: 'swap', requestedAt: at(9) })]);
        expect(await uow.run((s) => s.intents.open(1))).toHaveLength(1);
      }));

    it('deletes only the ask that was answered: one asked again meanwhile stays', () =>
      withUow(make, async (uow) => {
        const first = intent('pay_1');
        await uow.transaction((s) => s.intents.request(first));
        const dropped = intent('pay_1', { replaces: `0x${'2b'.repeat(32)}`, requestedAt: at(3) });
        await uow.transaction((s) => s.intents.request(dropped));
        expect(await uow.transaction((s) => s.intents.answered(first))).toBe(false);
        expect(await uow.run((s) => s.intents.open(10))).toEqual([dropped]);
        expect(await uow.transaction((s) => s.intents.answered(dropped))).toBe(true);
        expect(await uow.run((s) => s.intents.open(10))).toEqual([]);
        expect(await uow.transaction((s) => s.intents.answered(dropped))).toBe(false);
      }));

    it('asks nothing when the unit of work rolls back', () =>
      withUow(make, async (uow) => {
        await expect(
          uow.transaction(async (s) => {
            await s.intents.request(intent('pay_1'));
            throw new Error('no');
          }),
        ).rejects.toThrow('no');
        expect(await uow.run((s) => s.intents.open(10))).toEqual([]);
      }));
  });
}
