import { describe, expect, it } from 'vitest';
import { TESTNET } from '../../src/domain/network.js';
import { newRaise, transitionPledge, transitionRaise, type Pledge } from '../../src/domain/raise.js';
import { at, id, OTHER, WALLET } from '../support/fixtures.js';
import { withUow, type UowFactory } from './uow-factory.js';

/** Fair launches' raises and pledges (docs/decisions/0048): exact amounts, compare-and-set moves, what is due. */
export function raiseStoreContract(name: string, make: UowFactory) {
  describe(`RaiseStore contract: ${name}`, () => {
    const raise = (tokenId: string, endMs = 10_000) =>
      newRaise({ tokenId, network: TESTNET, terms: { goalUsd: 10n ** 30n + 7n, durationSeconds: endMs / 1000, maxPerWalletUsd: null }, now: at(0), endsAt: at(endMs) });
    const pledge = (tokenId: string, wallet: string, ms: number, usd = 5_000_000n): Pledge => ({
      pledgeId: id('pld'),
      tokenId,
      network: TESTNET,
      wallet,
      usdAmount: usd,
      state: 'PLEDGED',
      authorization: { asset: 'USDC', from: wallet, to: OTHER, value: usd, validAfter: 0n, validBefore: 2n ** 63n + 1n, nonce: `0x${'1f'.repeat(32)}`, signature: `0x${'ab'.repeat(65)}` },
      paymentId: id('pay'),
      tokens: 0n,
      dropReason: null,
      payoutId: null,
      createdAt: at(ms),
      updatedAt: at(ms),
    });

    it('keeps a raise exactly and moves it by compare-and-set only from the state it is in', () =>
      withUow(make, async (uow) => {
        const r = { ...raise('tok_a'), maxPerWalletUsd: 123_456_789n };
        await uow.transaction((s) => s.raises.insert(r));
        expect(await uow.run((s) => s.raises.get('tok_a'))).toEqual(r);
        expect(await uow.run((s) => s.raises.get('tok_none'))).toBeNull();
        const collecting = transitionRaise(r, 'COLLECTING', at(20_000));
        expect(await uow.run((s) => s.raises.update(collecting, 'RAISING'))).toBe(true);
        expect(await uow.run((s) => s.raises.update(transitionRaise(r, 'FAILED', at(20_001), { failure: 'goal_not_reached' }), 'RAISING'))).toBe(false);
        const filled = transitionRaise(collecting, 'FILLED', at(30_000), { collectedUsd: 10n ** 30n, tokensBought: 10n ** 40n + 3n, remainderTokens: 2n, tradeId: 'trd_1' });
        expect(await uow.run((s) => s.raises.update(filled, 'COLLECTING'))).toBe(true);
        expect(await uow.run((s) => s.raises.get('tok_a'))).toEqual(filled);
        expect(await uow.run((s) => s.raises.countByState())).toEqual({ FILLED: 1 });
      }));

    it('due: RAISING past their end and every COLLECTING one, earliest end first, at most `limit`', () =>
      withUow(make, async (uow) => {
        const [a, b, c, d] = [raise('tok_a', 10_000), raise('tok_b', 20_000), raise('tok_c', 30_000), raise('tok_d', 40_000)];
        for (const r of [c, a, d, b]) await uow.transaction((s) => s.raises.insert(r));
        await uow.run((s) => s.raises.update(transitionRaise(d, 'COLLECTING', at(1)), 'RAISING'));
        await uow.run((s) => s.raises.update(transitionRaise(a, 'FAILED', at(1), { failure: 'goal_not_reached' }), 'RAISING'));
        expect((await uow.run((s) => s.raises.due(at(20_000), 10))).map((r) => r.tokenId)).toEqual(['tok_b', 'tok_d']);
        expect((await uow.run((s) => s.raises.due(at(50_000), 2))).map((r) => r.tokenId)).toEqual(['tok_b', 'tok_c']);
      }));

    it("keeps pledges with their authorization exactly, lists a raise's (or a wallet's, any case) oldest first, and moves them by compare-and-set", () =>
      withUow(make, async (uow) => {
        const [p1, p2, p3, other] = [pledge('tok_a', WALLET, 2), pledge('tok_a', OTHER, 1, 10n ** 25n + 1n), pledge('tok_a', WALLET, 3), pledge('tok_b', WALLET, 0)];
        for (const p of [p1, p2, p3, other]) await uow.transaction((s) => s.raises.insertPledge(p));
        expect(await uow.run((s) => s.raises.getPledge(p2.pledgeId))).toEqual(p2);
        expect(await uow.run((s) => s.raises.getPledge('pld_none'))).toBeNull();
        expect((await uow.run((s) => s.raises.pledgesOf('tok_a'))).map((p) => p.pledgeId)).toEqual([p2.pledgeId, p1.pledgeId, p3.pledgeId]);
        expect((await uow.run((s) => s.raises.pledgesOf('tok_a', WALLET.toLowerCase()))).map((p) => p.pledgeId)).toEqual([p1.pledgeId, p3.pledgeId]);
        expect((await uow.run((s) => s.raises.pledgedBy(WALLET.toLowerCase()))).map((p) => p.pledgeId).sort()).toEqual([p1.pledgeId, p3.pledgeId, other.pledgeId].sort());
        const collected = transitionPledge(p1, 'COLLECTED', at(9));
        expect(await uow.run((s) => s.raises.updatePledge(collected, 'PLEDGED'))).toBe(true);
        expect(await uow.run((s) => s.raises.updatePledge(transitionPledge(p1, 'CANCELLED', at(10)), 'PLEDGED'))).toBe(false);
        const shared = transitionPledge(collected, 'REFUNDED', at(11), { payoutId: 'pout_1' });
        expect(await uow.run((s) => s.raises.updatePledge(shared, 'COLLECTED'))).toBe(true);
        expect(await uow.run((s) => s.raises.getPledge(p1.pledgeId))).toEqual(shared);
      }));

    it('a pledge written in a transaction that fails is not there', () =>
      withUow(make, async (uow) => {
        const p = pledge('tok_a', WALLET, 0);
        await expect(
          uow.transaction(async (s) => {
            await s.raises.insertPledge(p);
            throw new Error('rolled back');
          }),
        ).rejects.toThrow('rolled back');
        expect(await uow.run((s) => s.raises.pledgesOf('tok_a'))).toEqual([]);
      }));
  });
}
