import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/domain/errors.js';
import { PRODUCTION, TESTNET } from '../../src/domain/network.js';
import type { Token } from '../../src/domain/token.js';
import type { TokenListQuery } from '../../src/ports/token-repository.js';
import { newVesting, releaseAt } from '../../src/domain/vesting.js';
import { at, bought, OTHER, position, T0, token, trade, WALLET } from '../support/fixtures.js';
import { withUow, type UowFactory } from './uow-factory.js';

const list = (q: Partial<TokenListQuery>): TokenListQuery => ({ sort: 'created', limit: 20, since: new Date(0), ...q });

export function tokenRepositoryContract(name: string, make: UowFactory) {
  describe(`TokenRepository contract: ${name}`, () => {
    it('inserts, reads and updates a token exactly, bigints above 2^64 included', () =>
      withUow(make, async (uow) => {
        const t = token({ symbol: 'EXACT', description: 'd', imageUrl: 'https://e.com/i.png' });
        await uow.transaction((s) => s.tokens.insert(t));
        expect(await uow.run((s) => s.tokens.get(t.tokenId))).toEqual(t);
        const moved = { ...bought(t, 10_000_000_000n), state: 'GRADUATED' as const, graduatedAt: at(5) };
        await uow.transaction(async (s) => {
          const locked = await s.tokens.getForUpdate(t.tokenId);
          expect(locked).toEqual(t);
          await s.tokens.update(moved);
        });
        const read = await uow.run((s) => s.tokens.get(t.tokenId));
        expect(read).toEqual(moved);
        expect(read!.curve.virtualTokens > 2n ** 64n).toBe(true);
        expect(await uow.run((s) => s.tokens.get('tok_missing'))).toBeNull();
      }));

    it("changes a token's image and thumbnail and nothing else; a trade's update afterwards keeps them", () =>
      withUow(make, async (uow) => {
        const t = token({ symbol: 'PIC', imageUrl: 'https://e.com/old.png' });
        await uow.transaction((s) => s.tokens.insert(t));
        const urls = { imageUrl: 'https://l.example/images/a.webp', thumbnailUrl: 'https://l.example/images/b.webp' };
        await uow.transaction((s) => s.tokens.setImage(t.tokenId, urls));
        expect(await uow.run((s) => s.tokens.get(t.tokenId))).toEqual({ ...t, ...urls });
        await uow.transaction(async (s) => s.tokens.update(bought((await s.tokens.getForUpdate(t.tokenId))!, 1_000_000n)));
        expect(await uow.run((s) => s.tokens.get(t.tokenId))).toMatchObject(urls);
        await expect(uow.transaction((s) => s.tokens.setImage('tok_missing', urls))).rejects.toThrow();
      }));

    it("keeps a cashback token's fee mode, and a token's creator splits as last set — which a trade's update leaves be", () =>
      withUow(make, async (uow) => {
        const cashback = token({ symbol: 'BACK', feeMode: 'cashback' });
        const split = token({ symbol: 'SPLIT', creatorSplits: [{ wallet: WALLET, bps: 6000 }, { wallet: OTHER, bps: 4000 }] });
        await uow.transaction(async (s) => {
          await s.tokens.insert(cashback);
          await s.tokens.insert(split);
        });
        expect(await uow.run((s) => s.tokens.get(cashback.tokenId))).toEqual(cashback);
        expect(await uow.run((s) => s.tokens.get(split.tokenId))).toEqual(split);
        const changed = [{ wallet: OTHER, bps: 1 }, { wallet: WALLET, bps: 9999 }];
        await uow.transaction((s) => s.tokens.setCreatorSplits(split.tokenId, changed));
        await uow.transaction(async (s) => s.tokens.update(bought((await s.tokens.getForUpdate(split.tokenId))!, 1_000_000n)));
        await uow.transaction(async (s) => s.tokens.update({ ...bought(split, 2_000_000n), creatorSplits: null }));
        expect((await uow.run((s) => s.tokens.get(split.tokenId)))!.creatorSplits).toEqual(changed);
        await uow.transaction((s) => s.tokens.setCreatorSplits(split.tokenId, null));
        expect((await uow.run((s) => s.tokens.get(split.tokenId)))!.creatorSplits).toBeNull();
        await expect(uow.transaction((s) => s.tokens.setCreatorSplits('tok_missing', null))).rejects.toThrow();
      }));

    it("starts a dev buy's vesting once, releases it by compare-and-set on its releases, and lists the vestings due", () =>
      withUow(make, async (uow) => {
        const t = token({ symbol: 'VEST' });
        const other = token({ symbol: 'NOVEST' });
        const vesting = newVesting(10n ** 27n + 3n, { cliffSeconds: 60, durationSeconds: 100 }, T0);
        await uow.transaction(async (s) => {
          await s.tokens.insert(t);
          await s.tokens.insert(other);
          await s.tokens.startVesting(t.tokenId, vesting);
        });
        expect(await uow.run((s) => s.tokens.get(t.tokenId))).toEqual({ ...t, vesting });
        await expect(uow.transaction((s) => s.tokens.startVesting(t.tokenId, vesting))).rejects.toThrow();
        expect(await uow.run((s) => s.tokens.dueVestings(at(59_999), 10))).toEqual([]);
        expect((await uow.run((s) => s.tokens.dueVestings(at(60_000), 10))).map((x) => x.tokenId)).toEqual([t.tokenId]);
        // Half-way through: half released, the next look a second on; a second pass from the same count loses.
        const half = releaseAt(vesting, at(110_000))!;
        expect(half.tokens).toBe((10n ** 27n + 3n) / 2n);
        expect(await uow.transaction((s) => s.tokens.releaseVesting(t.tokenId, half.vesting, 0))).toBe(true);
        expect(await uow.transaction((s) => s.tokens.releaseVesting(t.tokenId, half.vesting, 0))).toBe(false);
        await uow.transaction(async (s) => s.tokens.update(bought((await s.tokens.getForUpdate(t.tokenId))!, 1_000_000n)));
        expect((await uow.run((s) => s.tokens.get(t.tokenId)))!.vesting).toEqual(half.vesting);
        const rest = releaseAt(half.vesting, at(200_000))!;
        expect(await uow.transaction((s) => s.tokens.releaseVesting(t.tokenId, rest.vesting, 1))).toBe(true);
        expect((await uow.run((s) => s.tokens.get(t.tokenId)))!.vesting).toEqual({ ...rest.vesting, released: 10n ** 27n + 3n, releases: 2, nextReleaseAtMs: null });
        expect(await uow.run((s) => s.tokens.dueVestings(at(10_000_000), 10))).toEqual([]);
      }));

    it("keeps a fair launch's mode, and when it started trading: none while it raises, then the time its raise settled", () =>
      withUow(make, async (uow) => {
        const t = token({ symbol: 'FAIR', launchMode: 'fair', tradingSince: null });
        await uow.transaction((s) => s.tokens.insert(t));
        expect(await uow.run((s) => s.tokens.get(t.tokenId))).toEqual(t);
        const opened = { ...t, tradingSince: at(15_000) };
        await uow.transaction((s) => s.tokens.update(opened));
        expect(await uow.run((s) => s.tokens.get(t.tokenId))).toEqual(opened);
      }));

    it('locks a token with the position its unit reads next: the same token, and the position as stored (or none), exact', () =>
      withUow(make, async (uow) => {
        const t = token({ symbol: 'WITHPOS' });
        const held = position({ tokenId: t.tokenId, network: t.network, balance: 10n ** 27n + 7n, realizedPnlUsd: -5n });
        await uow.transaction(async (s) => {
          await s.tokens.insert(t);
          await s.positions.save(held);
        });
        await uow.transaction(async (s) => {
          expect(await s.tokens.getForUpdate(t.tokenId, WALLET.toLowerCase())).toEqual(t);
          expect(await s.positions.get(t.network, WALLET, t.tokenId)).toEqual(held);
          // Read once with the lock; asked again, it is read again (here, after this unit's own write).
          const moved = { ...held, balance: 1n, updatedAt: at(9) };
          await s.positions.save(moved);
          expect(await s.positions.get(t.network, WALLET, t.tokenId)).toEqual(moved);
        });
        await uow.transaction(async (s) => {
          expect(await s.tokens.getForUpdate(t.tokenId, OTHER)).toEqual(t);
          expect(await s.positions.get(t.network, OTHER, t.tokenId)).toBeNull();
        });
        expect(await uow.transaction((s) => s.tokens.getForUpdate('tok_missing', WALLET))).toBeNull();
      }));

    it('lists the tokens without an address (from before tokens went on chain), oldest first, and forgets one once it has one', () =>
      withUow(make, async (uow) => {
        const legacy = (i: number) => token({ symbol: `OLD${i}`, address: null, createdAt: at(10 - i) });
        const [a, b, c] = [legacy(1), legacy(2), legacy(3)];
        await uow.transaction(async (s) => {
          for (const t of [a, b, c, token({ symbol: 'NEW' })]) await s.tokens.insert(t);
        });
        expect((await uow.run((s) => s.tokens.listWithoutAddress(2))).map((t) => t.symbol)).toEqual(['OLD3', 'OLD2']);
        await uow.transaction(async (s) => s.tokens.update({ ...c, address: '0x00000000000000000000000000000000000000c3' }));
        const left = await uow.run((s) => s.tokens.listWithoutAddress(10));
        expect(left.map((t) => t.symbol)).toEqual(['OLD2', 'OLD1']);
        expect(left[0]).toEqual(b);
      }));

    it('finds the token whose contract or Uniswap v2 pair is at an address, on any network and in any case', () =>
      withUow(make, async (uow) => {
        const onCurve = token({ symbol: 'CRV', network: PRODUCTION, address: '0x00000000000000000000000000000000000Ab0C1' });
        const graduated = token({
          symbol: 'GRD',
          address: '0x00000000000000000000000000000000000ab0c2',
          state: 'GRADUATED',
          pool: { dex: 'uniswap-v2', state: 'CREATED', address: '0x00000000000000000000000000000000000Ab0D2', txHash: null },
        });
        await uow.transaction(async (s) => {
          for (const t of [onCurve, graduated, token({ symbol: 'OLD', address: null })]) await s.tokens.insert(t);
        });
        const find = (a: string) => uow.run((s) => s.tokens.findByAddress(a));
        expect(await find('0x00000000000000000000000000000000000ab0c1')).toEqual({ tokenId: onCurve.tokenId, network: PRODUCTION, what: 'token' });
        expect(await find('0x00000000000000000000000000000000000AB0C2')).toEqual({ tokenId: graduated.tokenId, network: TESTNET, what: 'token' });
        expect(await find('0x00000000000000000000000000000000000ab0d2')).toEqual({ tokenId: graduated.tokenId, network: TESTNET, what: 'pair' });
        expect(await find('0x00000000000000000000000000000000000ab0c3')).toBeNull();
      }));

    it('filters by network, state, creator and a case-insensitive name or symbol prefix', () =>
      withUow(make, async (uow) => {
        const a = token({ symbol: 'ALPHA', name: 'Alpha', createdAt: at(1) });
        const b = token({ symbol: 'BETA', name: 'alphabet soup', network: PRODUCTION, createdAt: at(2) });
        const c = token({ symbol: 'GAMMA', name: 'Gamma', creator: OTHER, state: 'GRADUATED', createdAt: at(3) });
        await uow.transaction(async (s) => {
          for (const t of [a, b, c]) await s.tokens.insert(t);
        });
        const ids = async (q: Partial<TokenListQuery>) => (await uow.run((s) => s.tokens.list(list(q)))).items.map((t) => t.symbol);
        expect(await ids({})).toEqual(['GAMMA', 'BETA', 'ALPHA']);
        expect(await ids({ network: PRODUCTION })).toEqual(['BETA']);
        expect(await ids({ network: TESTNET })).toEqual(['GAMMA', 'ALPHA']);
        expect(await ids({ state: 'GRADUATED' })).toEqual(['GAMMA']);
        expect(await ids({ creator: OTHER.toLowerCase() })).toEqual(['GAMMA']);
        expect(await ids({ q: 'ALP' })).toEqual(['BETA', 'ALPHA']);
        expect(await ids({ q: 'gam' })).toEqual(['GAMMA']);
        expect(await ids({ q: 'zzz' })).toEqual([]);
      }));

    it('sorts by market cap and by 24-hour volume, largest first, ties by tokenId descending', () =>
      withUow(make, async (uow) => {
        const small = token({ symbol: 'S', createdAt: at(1) });
        const large = bought(token({ symbol: 'L', createdAt: at(2) }), 1_000_000_000n);
        const mid = bought(token({ symbol: 'M', createdAt: at(3) }), 10_000_000n);
        const tie = token({ symbol: 'T', createdAt: at(4) });
        await uow.transaction(async (s) => {
          for (const t of [small, large, mid, tie]) await s.tokens.insert(t);
          await s.trades.record(trade({ tokenId: small.tokenId, usdAmount: 7_000_000n, createdAt: at(10) }));
          await s.trades.record(trade({ tokenId: mid.tokenId, usdAmount: 3_000_000n, createdAt: at(10) }));
          await s.trades.record(trade({ tokenId: mid.tokenId, usdAmount: 1_000_000n, createdAt: at(10) }));
          await s.trades.record(trade({ tokenId: large.tokenId, usdAmount: 90_000_000n, createdAt: new Date(T0.getTime() - 2 * 86_400_000) }));
        });
        const order = async (q: Partial<TokenListQuery>) =>
          (await uow.run((s) => s.tokens.list(list(q)))).items.map((t) => t.symbol);
        const tieOrder = [small, tie].sort((x, y) => (x.tokenId < y.tokenId ? 1 : -1)).map((t) => t.symbol);
        expect(await order({ sort: 'marketCap' })).toEqual(['L', 'M', ...tieOrder]);
        const volume = await order({ sort: 'volume24h', since: at(0) });
        expect(volume.slice(0, 2)).toEqual(['S', 'M']);
      }));

    it('pages with an opaque keyset cursor: every token once, in order, at any depth', () =>
      withUow(make, async (uow) => {
        const all: Token[] = [];
        for (let i = 0; i < 23; i++) all.push(token({ symbol: `P${i}`, createdAt: at(i % 5) })); // duplicate timestamps
        await uow.transaction(async (s) => {
          for (const t of all) await s.tokens.insert(t);
        });
        for (const sort of ['created', 'marketCap', 'volume24h'] as const) {
          const seen: string[] = [];
          let cursor: string | undefined;
          for (let guard = 0; guard < 10; guard++) {
            const page = await uow.run((s) => s.tokens.list(list({ sort, limit: 5, cursor })));
            seen.push(...page.items.map((t) => t.tokenId));
            if (!page.nextCursor) break;
            cursor = page.nextCursor;
          }
          expect(seen).toHaveLength(23);
          expect(new Set(seen).size).toBe(23);
          const full = (await uow.run((s) => s.tokens.list(list({ sort, limit: 100 })))).items.map((t) => t.tokenId);
          expect(seen).toEqual(full);
        }
      }));

    it('refuses a cursor it did not issue', () =>
      withUow(make, async (uow) => {
        await expect(uow.run((s) => s.tokens.list(list({ cursor: 'not-a-cursor!' })))).rejects.toBeInstanceOf(ValidationError);
        await expect(uow.run((s) => s.tokens.list(list({ cursor: Buffer.from('{"x":1}').toString('base64url') })))).rejects.toMatchObject({
          code: 'VALIDATION_ERROR',
        });
      }));
  });
}
