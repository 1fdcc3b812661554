/**
 * The stores of custody's exactly-once transactions (pulls, swaps): one transaction per payment,
 * the first recorded stands, a dropped one is replaced only from the hash it had, and a rollback
 * forgets a record — so a retry follows the same transaction and never signs a second one. A
 * refusal recorded before any signature (NotSent) holds the payment's place the same way.
 */
import { describe, expect, it } from 'vitest';
import { TESTNET } from '../../src/domain/network.js';
import type { CustodyTransaction, CustodyTransactionStore, NotSent } from '../../src/ports/custody-transaction-store.js';
import type { Stores } from '../../src/ports/unit-of-work.js';
import { T0, at } from '../support/fixtures.js';
import { withUow, type UowFactory } from './uow-factory.js';

const signed = (paymentId: string, hash: string, over: Partial<CustodyTransaction> = {}): CustodyTransaction => ({
  paymentId,
  network: TESTNET,
  tokenId: 'tok_X',
  txHash: `0x${hash.repeat(32)}`,
  rawTx: `0x02${hash}`,
  createdAt: T0,
  ...over,
});

const refusal = (paymentId: string, createdAt = T0): NotSent => ({ paymentId, network: TESTNET, tokenId: 'tok_X', notSent: true, createdAt });

export function custodyTransactionStoreContract(name: string, make: UowFactory) {
  const stores: [string, (s: Stores) => CustodyTransactionStore<CustodyTransaction>][] = [
    ['pulls', (s) => s.pulls],
    ['swaps', (s) => s.swaps],
  ];
  describe.each(stores)(`CustodyTransactionStore contract (%s): ${name}`, (_which, store) => {
    it('records one transaction per payment: the first stands, a second signer gets it back', () =>
      withUow(make, async (uow) => {
        const first = signed('pay_1', '1a');
        expect(await uow.run((s) => store(s).get('pay_1'))).toBeNull();
        expect(await uow.transaction((s) => store(s).record(first))).toEqual(first);
        expect(await uow.transaction((s) => store(s).record(signed('pay_1', '2b', { createdAt: at(1) })))).toEqual(first);
        expect(await uow.run((s) => store(s).get('pay_1'))).toEqual(first);
        expect(await uow.run((s) => store(s).get('pay_2'))).toBeNull();
      }));

    it('replaces a dropped transaction only from the hash it has now', () =>
      withUow(make, async (uow) => {
        const first = signed('pay_1', '1a');
        await uow.transaction((s) => store(s).record(first));
        const resigned = signed('pay_1', '2b', { createdAt: at(5) });
        expect(await uow.transaction((s) => store(s).replace(resigned, first.txHash))).toBe(true);
        // A second re-signer that saw the first hash loses: the one that replaced it stands.
        expect(await uow.transaction((s) => store(s).replace(signed('pay_1', '3c'), first.txHash))).toBe(false);
        expect(await uow.run((s) => store(s).get('pay_1'))).toEqual(resigned);
        expect(await uow.transaction((s) => store(s).replace(signed('pay_9', '4d'), first.txHash))).toBe(false);
        expect(await uow.run((s) => store(s).get('pay_9'))).toBeNull();
      }));

    it('records a refusal in the transaction’s place: whichever comes first stands, and a refusal is never replaced', () =>
      withUow(make, async (uow) => {
        const refused = refusal('pay_1');
        expect(await uow.transaction((s) => store(s).refuse(refused))).toEqual(refused);
        expect(await uow.transaction((s) => store(s).record(signed('pay_1', '1a')))).toEqual(refused);
        expect(await uow.transaction((s) => store(s).refuse(refusal('pay_1', at(1))))).toEqual(refused);
        expect(await uow.transaction((s) => store(s).replace(signed('pay_1', '2b'), ''))).toBe(false);
        expect(await uow.run((s) => store(s).get('pay_1'))).toEqual(refused);

        // What the refusal said is kept with it, exactly (decision 0063).
        const said = { ...refusal('pay_3'), refusal: { code: 'SLIPPAGE_EXCEEDED', message: 'The pool has moved: “$0.90” < $1.00.', details: { expected: '$1.00', actual: '$0.90', nested: { n: 1 } }, status: 409 } };
        expect(await uow.transaction((s) => store(s).refuse(said))).toEqual(said);
        expect(await uow.run((s) => store(s).get('pay_3'))).toEqual(said);

        const first = signed('pay_2', '3c');
        await uow.transaction((s) => store(s).record(first));
        expect(await uow.transaction((s) => store(s).refuse(refusal('pay_2')))).toEqual(first);
        expect(await uow.run((s) => store(s).get('pay_2'))).toEqual(first);
      }));

    it('forgets a record when its unit of work rolls back', () =>
      withUow(make, async (uow) => {
        await expect(
          uow.transaction(async (s) => {
            await store(s).record(signed('pay_1', '1a'));
            throw new Error('crash');
          }),
        ).rejects.toThrow('crash');
        expect(await uow.run((s) => store(s).get('pay_1'))).toBeNull();
      }));
  });

  describe(`CustodyTransactionStore contract (pulls and swaps apart): ${name}`, () => {
    it('keeps a payment’s pull and its swap apart, and finds only pulls by their transaction', () =>
      withUow(make, async (uow) => {
        const pull = signed('pay_1', '1a');
        const swap = signed('pay_1', '2b');
        await uow.transaction(async (s) => {
          await s.pulls.record(pull);
          await s.swaps.record(swap);
        });
        expect(await uow.run((s) => s.pulls.get('pay_1'))).toEqual(pull);
        expect(await uow.run((s) => s.swaps.get('pay_1'))).toEqual(swap);
        expect(await uow.run((s) => s.pulls.byTransaction(TESTNET, swap.txHash))).toBeNull();
        // A refusal has no transaction: no hash finds it, not even an empty one.
        await uow.transaction((s) => s.pulls.refuse(refusal('pay_2')));
        expect(await uow.run((s) => s.pulls.byTransaction(TESTNET, ''))).toBeNull();
        expect(await uow.run((s) => s.pulls.byTransaction(TESTNET, pull.txHash))).toEqual(pull);
      }));

    it('keeps a buy swap’s terms, exactly, and replaces them with its transaction; a sell’s swap has none (decision 0061)', () =>
      withUow(make, async (uow) => {
        const buy = { grossUsd: 123_456_789_012_345_678_901_234_567n, amountIn: 122_222_221_122_222_222_111_111_111n, minTokensOut: 10n ** 30n + 7n };
        const swap = { ...signed('pay_1', '1a'), buy };
        await uow.transaction((s) => s.swaps.record(swap));
        expect(await uow.run((s) => s.swaps.get('pay_1'))).toEqual(swap);
        // Signed again later, at the fee in force then: another amount in.
        const resigned = { ...signed('pay_1', '2b', { createdAt: at(5) }), buy: { ...buy, amountIn: buy.amountIn + 1n } };
        expect(await uow.transaction((s) => s.swaps.replace(resigned, swap.txHash))).toBe(true);
        expect(await uow.run((s) => s.swaps.get('pay_1'))).toEqual(resigned);
        const sell = signed('pay_2', '3c');
        await uow.transaction((s) => s.swaps.record(sell));
        expect(await uow.run((s) => s.swaps.get('pay_2'))).toEqual(sell);
        expect(await uow.run((s) => s.swaps.get('pay_2'))).not.toHaveProperty('buy');
      }));
  });
}
