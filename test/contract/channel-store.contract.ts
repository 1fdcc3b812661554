/**
 * The store of payment channels (docs/payments.md "Pay once, call many"): amounts exact to any
 * size, a channel found by id and by payer in any letter case, and every move a compare-and-set
 * that racing requests agree on — one charge per `charged` value, one claim under way, the books
 * `claimed ≤ charged ≤ balance` kept, and the chain's figures never lowered by a stale read.
 */
import { describe, expect, it } from 'vitest';
import type { Channel } from '../../src/domain/channel.js';
import { PRODUCTION, TESTNET } from '../../src/domain/network.js';
import { at, OTHER, WALLET } from '../support/fixtures.js';
import { withUow, type UowFactory } from './uow-factory.js';

const BIG = 2n ** 127n;
const SIG = `0x${'5a'.repeat(65)}`;
const SIG2 = `0x${'6b'.repeat(65)}`;
const idOf = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

export const channel = (n: number, over: Partial<Channel> = {}): Channel => ({
  channelId: idOf(n),
  network: TESTNET,
  asset: 'USDC',
  config: {
    payer: WALLET,
    payerAuthorizer: WALLET,
    receiver: OTHER,
    receiverAuthorizer: OTHER,
    token: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
    withdrawDelay: 86_400,
    salt: `0x${'01'.repeat(32)}`,
  },
  balance: 10_000_000n,
  charged: 0n,
  signedMax: 0n,
  signature: null,
  claimed: 0n,
  claiming: null,
  claimingSince: null,
  refundNonce: 0n,
  createdAt: at(0),
  updatedAt: at(0),
  ...over,
});

const voucher = (from: bigint, amount: bigint, voucherMax: bigint, signature = SIG) => ({ from, amount, voucherMax, signature });

export function channelStoreContract(name: string, make: UowFactory) {
  describe(`ChannelStore contract: ${name}`, () => {
    it('records a channel exactly as funded, found by id and by payer in any letter case, newest first', () =>
      withUow(make, async (uow) => {
        const a = channel(1, { balance: BIG, refundNonce: BIG + 1n });
        const b = channel(2, { createdAt: at(5), updatedAt: at(5) });
        const c = channel(3, { createdAt: at(9), updatedAt: at(9), config: { ...a.config, payer: OTHER } });
        expect(await uow.transaction((s) => s.channels.funded(a, at(0)))).toEqual(a);
        await uow.transaction(async (s) => {
          await s.channels.funded(b, at(5));
          await s.channels.funded(c, at(9));
        });
        expect(await uow.run((s) => s.channels.get(a.channelId))).toEqual(a);
        expect(await uow.run((s) => s.channels.get(idOf(9)))).toBeNull();
        expect(await uow.run((s) => s.channels.ofPayer(WALLET.toLowerCase(), 10))).toEqual([b, a]);
        expect(await uow.run((s) => s.channels.ofPayer(WALLET.toUpperCase().replace('0X', '0x'), 1))).toEqual([b]);
        expect(await uow.run((s) => s.channels.ofPayer(OTHER, 10))).toEqual([c]);
      }));

    it('a deposit seen again raises the balance and the refund nonce, and a stale read lowers neither', () =>
      withUow(make, async (uow) => {
        const a = channel(1, { balance: 100n, refundNonce: 2n });
        await uow.run((s) => s.channels.funded(a, at(0)));
        await uow.run((s) => s.channels.charge(a.channelId, voucher(0n, 30n, 40n), at(1)));
        // 99 < 100 as numbers, but "99" > "100" as text: the comparison is numeric.
        const stale = await uow.run((s) => s.channels.funded({ ...a, balance: 99n, refundNonce: 1n }, at(2)));
        const charged = { ...a, charged: 30n, signedMax: 40n, signature: SIG, updatedAt: at(1) };
        expect(stale).toEqual(charged);
        expect(await uow.run((s) => s.channels.get(a.channelId))).toEqual(charged);
        const raised = await uow.run((s) => s.channels.funded({ ...a, balance: BIG, refundNonce: 3n }, at(3)));
        expect(raised).toEqual({ ...charged, balance: BIG, refundNonce: 3n, updatedAt: at(3) });
        expect(await uow.run((s) => s.channels.get(a.channelId))).toEqual(raised);
        const nonceOnly = await uow.run((s) => s.channels.funded({ ...a, balance: 5n, refundNonce: 10n }, at(4)));
        expect(nonceOnly).toMatchObject({ balance: BIG, refundNonce: 10n });
      }));

    it('charges a voucher that covers what is charged plus the price within the balance, and keeps the highest voucher', () =>
      withUow(make, async (uow) => {
        const a = channel(1, { balance: 100n });
        await uow.run((s) => s.channels.funded(a, at(0)));
        expect(await uow.run((s) => s.channels.charge(a.channelId, voucher(0n, 10n, 10n), at(1)))).toBe(true);
        expect(await uow.run((s) => s.channels.get(a.channelId))).toEqual({ ...a, charged: 10n, signedMax: 10n, signature: SIG, updatedAt: at(1) });
        // Exactly the balance pays; 9 ≥ … and 100 ≤ 100 are numeric, not text, comparisons.
        expect(await uow.run((s) => s.channels.charge(a.channelId, voucher(10n, 90n, 100n, SIG2), at(2)))).toBe(true);
        expect(await uow.run((s) => s.channels.get(a.channelId))).toMatchObject({ charged: 100n, signedMax: 100n, signature: SIG2, updatedAt: at(2) });
      }));

    it('refuses a voucher below what is charged plus the price, one above the balance, a stale `from` and an unknown channel', () =>
      withUow(make, async (uow) => {
        const a = channel(1, { balance: 100n });
        await uow.run((s) => s.channels.funded(a, at(0)));
        await uow.run((s) => s.channels.charge(a.channelId, voucher(0n, 9n, 9n), at(1)));
        const before = await uow.run((s) => s.channels.get(a.channelId));
        expect(await uow.run((s) => s.channels.charge(a.channelId, voucher(9n, 2n, 10n), at(2)))).toBe(false);
        expect(await uow.run((s) => s.channels.charge(a.channelId, voucher(9n, 2n, 101n), at(2)))).toBe(false);
        expect(await uow.run((s) => s.channels.charge(a.channelId, voucher(0n, 2n, 50n), at(2)))).toBe(false);
        expect(await uow.run((s) => s.channels.charge(a.channelId, voucher(10n, 2n, 50n), at(2)))).toBe(false);
        expect(await uow.run((s) => s.channels.charge(idOf(9), voucher(0n, 1n, 1n), at(2)))).toBe(false);
        expect(await uow.run((s) => s.channels.get(a.channelId))).toEqual(before);
        // Within the balance by length: 99 ≤ 100 (text would say "99" > "100").
        expect(await uow.run((s) => s.channels.charge(a.channelId, voucher(9n, 90n, 99n), at(3)))).toBe(true);
      }));

    it('of two vouchers charged from the same `charged`, one wins — one after the other and at once', () =>
      withUow(make, async (uow) => {
        const a = channel(1, { balance: 1_000n });
        await uow.run((s) => s.channels.funded(a, at(0)));
        expect(await uow.run((s) => s.channels.charge(a.channelId, voucher(0n, 10n, 10n), at(1)))).toBe(true);
        expect(await uow.run((s) => s.channels.charge(a.channelId, voucher(0n, 10n, 20n, SIG2), at(1)))).toBe(false);
        const racing = await Promise.all([
          uow.transaction((s) => s.channels.charge(a.channelId, voucher(10n, 5n, 15n), at(2))),
          uow.transaction((s) => s.channels.charge(a.channelId, voucher(10n, 7n, 17n, SIG2), at(2))),
          uow.run((s) => s.channels.charge(a.channelId, voucher(10n, 3n, 13n), at(2))),
        ]);
        expect(racing.filter(Boolean)).toHaveLength(1);
        const won = [15n, 17n, 13n][racing.indexOf(true)]!;
        expect(await uow.run((s) => s.channels.get(a.channelId))).toMatchObject({ charged: won, signedMax: won });
      }));

    it('a charge rolled back with its transaction leaves the channel as it was', () =>
      withUow(make, async (uow) => {
        const a = channel(1);
        await uow.run((s) => s.channels.funded(a, at(0)));
        await expect(
          uow.transaction(async (s) => {
            expect(await s.channels.charge(a.channelId, voucher(0n, 10n, 10n), at(1))).toBe(true);
            throw new Error('rollback');
          }),
        ).rejects.toThrow('rollback');
        expect(await uow.run((s) => s.channels.get(a.channelId))).toEqual(a);
      }));

    it('takes a charge back only while no claim has taken it or is taking it', () =>
      withUow(make, async (uow) => {
        const a = channel(1, { balance: 1_000n });
        await uow.run((s) => s.channels.funded(a, at(0)));
        await uow.run((s) => s.channels.charge(a.channelId, voucher(0n, 100n, 100n), at(1)));
        expect(await uow.run((s) => s.channels.uncharge(a.channelId, 10n, at(2)))).toBe(true);
        expect(await uow.run((s) => s.channels.get(a.channelId))).toMatchObject({ charged: 90n, signedMax: 100n, updatedAt: at(2) });
        expect(await uow.run((s) => s.channels.startClaim(a.channelId, 60n, at(3)))).toBe(true);
        expect(await uow.run((s) => s.channels.uncharge(a.channelId, 31n, at(4)))).toBe(false);
        expect(await uow.run((s) => s.channels.uncharge(a.channelId, 30n, at(4)))).toBe(true);
        expect(await uow.run((s) => s.channels.uncharge(a.channelId, 1n, at(5)))).toBe(false);
        await uow.run((s) => s.channels.claimed(a.channelId, 50n, at(6)));
        // The claim confirmed at 50: the floor is now 50, no longer the 60 it was taking.
        expect(await uow.run((s) => s.channels.uncharge(a.channelId, 11n, at(7)))).toBe(false);
        expect(await uow.run((s) => s.channels.uncharge(a.channelId, 10n, at(7)))).toBe(true);
        expect(await uow.run((s) => s.channels.uncharge(a.channelId, 1n, at(8)))).toBe(false);
        expect(await uow.run((s) => s.channels.uncharge(idOf(9), 1n, at(8)))).toBe(false);
        expect(await uow.run((s) => s.channels.get(a.channelId))).toMatchObject({ charged: 50n, claimed: 50n, claiming: null });
      }));

    it('two charges taken back at once both stand when the floor allows, and never take it below the floor', () =>
      withUow(make, async (uow) => {
        const a = channel(1, { balance: 1_000n });
        await uow.run((s) => s.channels.funded(a, at(0)));
        await uow.run((s) => s.channels.charge(a.channelId, voucher(0n, 100n, 100n), at(1)));
        const both = await Promise.all([uow.transaction((s) => s.channels.uncharge(a.channelId, 20n, at(2))), uow.run((s) => s.channels.uncharge(a.channelId, 30n, at(2)))]);
        expect(both).toEqual([true, true]);
        expect((await uow.run((s) => s.channels.get(a.channelId)))?.charged).toBe(50n);
        await uow.run((s) => s.channels.claimed(a.channelId, 20n, at(3)));
        const racing = await Promise.all([uow.transaction((s) => s.channels.uncharge(a.channelId, 20n, at(4))), uow.run((s) => s.channels.uncharge(a.channelId, 20n, at(4)))]);
        expect(racing.filter(Boolean)).toHaveLength(1);
        expect((await uow.run((s) => s.channels.get(a.channelId)))?.charged).toBe(30n);
      }));

    it('lists the channels with charges to claim on a network, oldest change first, and not those claimed or being claimed', () =>
      withUow(make, async (uow) => {
        await uow.transaction(async (s) => {
          for (const [n, over] of [
            [1, {}],
            [2, { charged: 9n, signedMax: 9n, updatedAt: at(20) }],
            [3, { charged: 10n, signedMax: 10n, claimed: 9n, updatedAt: at(10) }],
            [4, { charged: 5n, signedMax: 5n, claimed: 5n }],
            [5, { charged: 5n, signedMax: 5n, claiming: 5n, claimingSince: at(1) }],
            [6, { charged: 5n, signedMax: 5n, network: PRODUCTION }],
          ] as [number, Partial<Channel>][])
            await s.channels.funded(channel(n, over), at(0));
        });
        expect((await uow.run((s) => s.channels.claimable(TESTNET, 10))).map((c) => c.channelId)).toEqual([idOf(3), idOf(2)]);
        expect((await uow.run((s) => s.channels.claimable(TESTNET, 1))).map((c) => c.channelId)).toEqual([idOf(3)]);
        expect((await uow.run((s) => s.channels.claimable(PRODUCTION, 10))).map((c) => c.channelId)).toEqual([idOf(6)]);
      }));

    it('starts one claim at a time, of a total above what is claimed and within what is charged', () =>
      withUow(make, async (uow) => {
        const a = channel(1, { balance: 1_000n });
        await uow.run((s) => s.channels.funded(a, at(0)));
        await uow.run((s) => s.channels.charge(a.channelId, voucher(0n, 100n, 100n), at(1)));
        expect(await uow.run((s) => s.channels.startClaim(a.channelId, 101n, at(2)))).toBe(false);
        expect(await uow.run((s) => s.channels.startClaim(a.channelId, 0n, at(2)))).toBe(false);
        expect(await uow.run((s) => s.channels.startClaim(idOf(9), 1n, at(2)))).toBe(false);
        const racing = await Promise.all([
          uow.transaction((s) => s.channels.startClaim(a.channelId, 100n, at(3))),
          uow.transaction((s) => s.channels.startClaim(a.channelId, 99n, at(3))),
          uow.run((s) => s.channels.startClaim(a.channelId, 9n, at(3))),
        ]);
        expect(racing.filter(Boolean)).toHaveLength(1);
        const total = [100n, 99n, 9n][racing.indexOf(true)]!;
        expect(await uow.run((s) => s.channels.get(a.channelId))).toMatchObject({ claiming: total, claimingSince: at(3), updatedAt: at(3) });
        expect(await uow.run((s) => s.channels.claimable(TESTNET, 10))).toEqual([]);
        expect(await uow.run((s) => s.channels.startClaim(a.channelId, 100n, at(4)))).toBe(false);
        await uow.run((s) => s.channels.claimed(a.channelId, 9n, at(5)));
        // At or below what is claimed (9 < 10 numerically, not as text) nothing is left to claim.
        expect(await uow.run((s) => s.channels.startClaim(a.channelId, 9n, at(6)))).toBe(false);
        expect(await uow.run((s) => s.channels.startClaim(a.channelId, 10n, at(6)))).toBe(true);
      }));

    it('lists the claims under way since before a time, oldest first; an abandoned claim leaves its charges claimable', () =>
      withUow(make, async (uow) => {
        for (const n of [1, 2, 3]) {
          await uow.run((s) => s.channels.funded(channel(n), at(0)));
          await uow.run((s) => s.channels.charge(idOf(n), voucher(0n, 50n, 50n), at(1)));
        }
        await uow.run((s) => s.channels.startClaim(idOf(2), 50n, at(10)));
        await uow.run((s) => s.channels.startClaim(idOf(1), 40n, at(20)));
        expect((await uow.run((s) => s.channels.claimsUnderWay(at(21), 10))).map((c) => c.channelId)).toEqual([idOf(2), idOf(1)]);
        expect((await uow.run((s) => s.channels.claimsUnderWay(at(20), 10))).map((c) => c.channelId)).toEqual([idOf(2)]);
        expect((await uow.run((s) => s.channels.claimsUnderWay(at(21), 1))).map((c) => c.channelId)).toEqual([idOf(2)]);
        await uow.run((s) => s.channels.claimAbandoned(idOf(2), at(30)));
        expect(await uow.run((s) => s.channels.get(idOf(2)))).toMatchObject({ claimed: 0n, claiming: null, claimingSince: null, charged: 50n, updatedAt: at(30) });
        expect((await uow.run((s) => s.channels.claimsUnderWay(at(40), 10))).map((c) => c.channelId)).toEqual([idOf(1)]);
        expect((await uow.run((s) => s.channels.claimable(TESTNET, 10))).map((c) => c.channelId)).toEqual([idOf(3), idOf(2)]);
      }));

    it('a claim confirmed raises what is claimed and ends the claim; a stale confirmation never lowers it', () =>
      withUow(make, async (uow) => {
        const a = channel(1, { balance: 1_000n });
        await uow.run((s) => s.channels.funded(a, at(0)));
        await uow.run((s) => s.channels.charge(a.channelId, voucher(0n, 100n, 100n), at(1)));
        await uow.run((s) => s.channels.startClaim(a.channelId, 100n, at(2)));
        await uow.run((s) => s.channels.claimed(a.channelId, 100n, at(3)));
        expect(await uow.run((s) => s.channels.get(a.channelId))).toMatchObject({ claimed: 100n, claiming: null, claimingSince: null, updatedAt: at(3) });
        await uow.run((s) => s.channels.claimed(a.channelId, 99n, at(4)));
        expect((await uow.run((s) => s.channels.get(a.channelId)))?.claimed).toBe(100n);
        expect(await uow.run((s) => s.channels.claimable(TESTNET, 10))).toEqual([]);
      }));

    it('a refund sets the balance and refund nonce the chain shows, and raises what is claimed, never lowering it', () =>
      withUow(make, async (uow) => {
        const a = channel(1, { balance: 1_000n });
        await uow.run((s) => s.channels.funded(a, at(0)));
        await uow.run((s) => s.channels.charge(a.channelId, voucher(0n, 100n, 100n), at(1)));
        await uow.run((s) => s.channels.claimed(a.channelId, 40n, at(2)));
        await uow.run((s) => s.channels.refunded(a.channelId, { balance: 100n, claimed: 100n, refundNonce: 1n }, at(3)));
        expect(await uow.run((s) => s.channels.get(a.channelId))).toMatchObject({ balance: 100n, claimed: 100n, refundNonce: 1n, charged: 100n, updatedAt: at(3) });
        await uow.run((s) => s.channels.refunded(a.channelId, { balance: 90n, claimed: 30n, refundNonce: 2n }, at(4)));
        expect(await uow.run((s) => s.channels.get(a.channelId))).toMatchObject({ balance: 90n, claimed: 100n, refundNonce: 2n });
      }));

    it('keeps amounts of any size exact through every move (2^127, and a balance of 2^256 − 1)', () =>
      withUow(make, async (uow) => {
        const huge = 2n ** 256n - 1n;
        const a = channel(1, { balance: huge });
        await uow.run((s) => s.channels.funded(a, at(0)));
        expect(await uow.run((s) => s.channels.charge(a.channelId, voucher(0n, BIG, BIG + 1n), at(1)))).toBe(true);
        expect(await uow.run((s) => s.channels.charge(a.channelId, voucher(BIG, BIG, huge + 1n), at(2)))).toBe(false);
        expect(await uow.run((s) => s.channels.charge(a.channelId, voucher(BIG, BIG - 1n, 2n * BIG - 2n), at(2)))).toBe(false);
        expect(await uow.run((s) => s.channels.charge(a.channelId, voucher(BIG, BIG - 1n, 2n * BIG - 1n), at(2)))).toBe(true);
        expect(await uow.run((s) => s.channels.startClaim(a.channelId, 2n * BIG, at(3)))).toBe(false);
        expect(await uow.run((s) => s.channels.startClaim(a.channelId, 2n * BIG - 1n, at(3)))).toBe(true);
        expect(await uow.run((s) => s.channels.uncharge(a.channelId, 1n, at(4)))).toBe(false);
        await uow.run((s) => s.channels.claimed(a.channelId, BIG + 1n, at(5)));
        expect(await uow.run((s) => s.channels.uncharge(a.channelId, BIG - 1n, at(6)))).toBe(false);
        expect(await uow.run((s) => s.channels.uncharge(a.channelId, BIG - 2n, at(6)))).toBe(true);
        expect(await uow.run((s) => s.channels.get(a.channelId))).toMatchObject({ balance: huge, charged: BIG + 1n, signedMax: 2n * BIG - 1n, claimed: BIG + 1n });
        expect((await uow.run((s) => s.channels.claimable(TESTNET, 10))).map((c) => c.channelId)).toEqual([]);
      }));
  });
}
