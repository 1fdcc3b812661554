/**
 * Fee shares earned by creators and referrers: booked exactly, summed per wallet for payouts, each
 * unpaid row claimed by one payout only, and shown per token and role with what is paid.
 */
import { describe, expect, it } from 'vitest';
import type { Earning } from '../../src/domain/earnings.js';
import { PRODUCTION, TESTNET } from '../../src/domain/network.js';
import { newPayout, transitionPayout } from '../../src/domain/payout.js';
import { at, OTHER, T0, WALLET } from '../support/fixtures.js';
import { withUow, type UowFactory } from './uow-factory.js';

let n = 0;
const earning = (over: Partial<Earning> = {}): Earning => ({
  earningId: `earn_${String((n += 1)).padStart(6, '0')}`,
  network: TESTNET,
  wallet: WALLET,
  role: 'creator',
  tokenId: 'tok_A',
  tradeId: `trd_${n}`,
  amount: 250_000n,
  createdAt: at(n),
  payoutId: null,
  ...over,
});

export function earningsStoreContract(name: string, make: UowFactory) {
  describe(`EarningsStore contract: ${name}`, () => {
    it('sums unpaid earnings per wallet for the roles a payout pays, from the threshold on', () =>
      withUow(make, async (uow) => {
        await uow.transaction((s) =>
          s.earnings.accrue([
            earning({ amount: 600_000n }),
            earning({ amount: 400_001n, tokenId: 'tok_B' }),
            earning({ role: 'trade_referrer', amount: 5_000_000n }),
            earning({ wallet: OTHER, amount: 999_999n }),
            earning({ network: PRODUCTION, amount: 2_000_000n }),
          ]),
        );
        const creators = await uow.run((s) => s.earnings.unpaid(['creator'], 1_000_000n, 10));
        expect(creators.map((u) => ({ network: u.network, wallet: u.wallet.toLowerCase(), amount: u.amount })).sort((a, b) => a.network.localeCompare(b.network))).toEqual([
          { network: PRODUCTION, wallet: WALLET.toLowerCase(), amount: 2_000_000n },
          { network: TESTNET, wallet: WALLET.toLowerCase(), amount: 1_000_001n },
        ]);
        const referrals = await uow.run((s) => s.earnings.unpaid(['platform_referrer', 'trade_referrer'], 1_000_000n, 10));
        expect(referrals.map((u) => u.amount)).toEqual([5_000_000n]);
      }));

    it('a payout claims the unpaid rows once: a second claim finds nothing', () =>
      withUow(make, async (uow) => {
        await uow.transaction((s) => s.earnings.accrue([earning({ amount: 700_000n }), earning({ amount: 300_000n }), earning({ role: 'platform_referrer', amount: 9n })]));
        const first = await uow.transaction((s) => s.earnings.claimUnpaid(TESTNET, WALLET.toLowerCase(), ['creator'], 'pout_1'));
        const second = await uow.transaction((s) => s.earnings.claimUnpaid(TESTNET, WALLET, ['creator'], 'pout_2'));
        expect([first, second]).toEqual([1_000_000n, 0n]);
        expect(await uow.run((s) => s.earnings.unpaid(['creator'], 1n, 10))).toEqual([]);
        expect((await uow.run((s) => s.earnings.unpaid(['platform_referrer'], 1n, 10))).map((u) => u.amount)).toEqual([9n]);
      }));

    it('a claim in a transaction that fails leaves the rows unpaid', () =>
      withUow(make, async (uow) => {
        await uow.transaction((s) => s.earnings.accrue([earning({ amount: 2_000_000n })]));
        await expect(
          uow.transaction(async (s) => {
            await s.earnings.claimUnpaid(TESTNET, WALLET, ['creator'], 'pout_x');
            throw new Error('killed');
          }),
        ).rejects.toThrow('killed');
        expect((await uow.run((s) => s.earnings.unpaid(['creator'], 1n, 10))).map((u) => u.amount)).toEqual([2_000_000n]);
      }));

    it('shows a wallet its earnings by token and role, paid = rows whose payout is confirmed', () =>
      withUow(make, async (uow) => {
        await uow.transaction((s) =>
          s.earnings.accrue([earning({ amount: 1_500_000n }), earning({ amount: 500_000n, tokenId: 'tok_B', role: 'trade_referrer' }), earning({ wallet: OTHER, amount: 7n })]),
        );
        await uow.transaction(async (s) => {
          const claimed = await s.earnings.claimUnpaid(TESTNET, WALLET, ['creator'], 'pout_c');
          const payout = newPayout({ payoutId: 'pout_c', network: TESTNET, wallet: WALLET, amount: claimed, reason: 'creator_fee', sourceId: 'earnings:pout_c', now: T0 });
          await s.payouts.enqueue(payout);
        });
        const before = await uow.run((s) => s.earnings.ofWallet(WALLET.toLowerCase()));
        expect(before).toEqual([
          { network: TESTNET, tokenId: 'tok_A', role: 'creator', accrued: 1_500_000n, paid: 0n },
          { network: TESTNET, tokenId: 'tok_B', role: 'trade_referrer', accrued: 500_000n, paid: 0n },
        ]);
        const pending = (await uow.run((s) => s.payouts.get('pout_c')))!;
        const sent = transitionPayout(pending, 'SENT', at(10), { txHash: `0x${'1'.repeat(64)}`, rawTx: '0x02' });
        await uow.transaction((s) => s.payouts.update(sent, 'PENDING'));
        await uow.transaction((s) => s.payouts.update(transitionPayout(sent, 'CONFIRMED', at(20)), 'SENT'));
        expect((await uow.run((s) => s.earnings.ofWallet(WALLET)))[0]).toMatchObject({ accrued: 1_500_000n, paid: 1_500_000n });
      }));

    it('totals what creators earned per token, and ranks creators by it', () =>
      withUow(make, async (uow) => {
        await uow.transaction((s) =>
          s.earnings.accrue([
            earning({ amount: 100n }),
            earning({ amount: 200n, tokenId: 'tok_B' }),
            earning({ wallet: OTHER, tokenId: 'tok_C', amount: 1_000n }),
            earning({ role: 'platform_referrer', amount: 5_000n }),
          ]),
        );
        const totals = await uow.run((s) => s.earnings.creatorTotals(['tok_A', 'tok_C', 'tok_none']));
        expect(Object.fromEntries(totals)).toEqual({ tok_A: 100n, tok_C: 1_000n, tok_none: 0n });
        const top = await uow.run((s) => s.earnings.topCreators(10));
        expect(top.map((c) => ({ wallet: c.wallet.toLowerCase(), accrued: c.accrued, tokens: c.tokens }))).toEqual([
          { wallet: OTHER.toLowerCase(), accrued: 1_000n, tokens: 1 },
          { wallet: WALLET.toLowerCase(), accrued: 300n, tokens: 2 },
        ]);
      }));
  });
}
