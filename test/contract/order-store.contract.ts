/**
 * The store of orders (docs/api.md "Orders"): exact amounts and the held authorization round-trip,
 * every move of state is a compare-and-set on the state it leaves (one winner), and the reads the
 * executor and the API use — a wallet's orders, a token's book, the expired, the EXECUTING.
 */
import { describe, expect, it } from 'vitest';
import { TESTNET } from '../../src/domain/network.js';
import { transitionOrder, type Order } from '../../src/domain/order.js';
import { at } from '../support/fixtures.js';
import { withUow, type UowFactory } from './uow-factory.js';

const WALLET = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

export const order = (orderId: string, over: Partial<Order> = {}): Order => ({
  orderId,
  network: TESTNET,
  tokenId: 'tok_X',
  wallet: WALLET,
  kind: 'limit_buy',
  triggerPrice: 123_456_789_012_345_678_901_234n,
  usdAmount: 5_000_000n,
  tokens: null,
  minTokensOut: 10n ** 24n,
  minUsdOut: null,
  asset: 'USDC',
  authorization: {
    from: WALLET,
    to: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    value: 5_000_000n,
    validAfter: 0n,
    validBefore: 1_900_000_000n,
    nonce: `0x${'ab'.repeat(32)}`,
    signature: `0x${'cd'.repeat(65)}`,
  },
  expiresAt: at(3_600_000),
  state: 'OPEN',
  reason: null,
  tradeId: null,
  paymentId: 'pay_1',
  createdAt: at(0),
  updatedAt: at(0),
  ...over,
});

export function orderStoreContract(name: string, make: UowFactory) {
  describe(`OrderStore contract: ${name}`, () => {
    it('keeps an order exactly as placed, found by id and by wallet in any letter case, newest first', () =>
      withUow(make, async (uow) => {
        const a = order('ord_1');
        const b = order('ord_2', { kind: 'stop_loss', usdAmount: null, tokens: 7n * 10n ** 20n, minTokensOut: null, minUsdOut: 3n, asset: null, createdAt: at(5) });
        await uow.transaction(async (s) => {
          await s.orders.insert(a);
          await s.orders.insert(b);
        });
        expect(await uow.run((s) => s.orders.get('ord_1'))).toEqual(a);
        expect(await uow.run((s) => s.orders.get('ord_9'))).toBeNull();
        expect(await uow.run((s) => s.orders.byWallet(WALLET.toLowerCase(), 10))).toEqual([b, a]);
        expect(await uow.run((s) => s.orders.byWallet(WALLET, 1))).toEqual([b]);
        expect(await uow.run((s) => s.orders.openOf(WALLET.toLowerCase()))).toEqual([a, b]);
        await uow.transaction((s) => s.orders.transition({ ...a, state: 'EXECUTING' }, 'OPEN'));
        expect(await uow.run((s) => s.orders.openOf(WALLET))).toEqual([b]);
      }));

    it('moves state by compare-and-set: of two movers from OPEN only one wins', () =>
      withUow(make, async (uow) => {
        const a = order('ord_1');
        await uow.transaction((s) => s.orders.insert(a));
        const executing = transitionOrder(a, 'EXECUTING', at(10));
        const cancelled = transitionOrder(a, 'CANCELLED', at(10), { reason: 'by_wallet' });
        const [one, two] = await Promise.all([uow.run((s) => s.orders.transition(executing, 'OPEN')), uow.run((s) => s.orders.transition(cancelled, 'OPEN'))]);
        expect([one, two].filter(Boolean)).toHaveLength(1);
        const done = transitionOrder(executing, 'EXECUTED', at(20), { tradeId: 'trd_1' });
        if (one) {
          expect(await uow.run((s) => s.orders.transition(done, 'EXECUTING'))).toBe(true);
          expect(await uow.run((s) => s.orders.get('ord_1'))).toEqual(done);
        }
      }));

    it('a move rolled back with its transaction leaves the order as it was', () =>
      withUow(make, async (uow) => {
        const a = order('ord_1');
        await uow.transaction((s) => s.orders.insert(a));
        await expect(
          uow.transaction(async (s) => {
            await s.orders.transition(transitionOrder(a, 'EXECUTING', at(1)), 'OPEN');
            throw new Error('rollback');
          }),
        ).rejects.toThrow('rollback');
        expect((await uow.run((s) => s.orders.get('ord_1')))?.state).toBe('OPEN');
      }));

    it('serves a token book, the tokens with open orders, the expired, the executing and the open count', () =>
      withUow(make, async (uow) => {
        await uow.transaction(async (s) => {
          await s.orders.insert(order('ord_1', { expiresAt: at(100) }));
          await s.orders.insert(order('ord_2', { tokenId: 'tok_Y', createdAt: at(1), expiresAt: at(50) }));
          await s.orders.insert(order('ord_3', { createdAt: at(2), state: 'EXECUTING' }));
          await s.orders.insert(order('ord_4', { createdAt: at(3), expiresAt: at(10), state: 'CANCELLED' }));
        });
        expect((await uow.run((s) => s.orders.ofToken('tok_X', 'OPEN'))).map((o) => o.orderId)).toEqual(['ord_1']);
        expect(await uow.run((s) => s.orders.tokensWithOpen())).toEqual(['tok_X', 'tok_Y']);
        expect((await uow.run((s) => s.orders.expired(at(100), 10))).map((o) => o.orderId)).toEqual(['ord_2', 'ord_1']);
        expect((await uow.run((s) => s.orders.expired(at(99), 10))).map((o) => o.orderId)).toEqual(['ord_2']);
        expect((await uow.run((s) => s.orders.executing(10))).map((o) => o.orderId)).toEqual(['ord_3']);
        expect(await uow.run((s) => s.orders.countOpen())).toBe(2);
      }));
  });
}
