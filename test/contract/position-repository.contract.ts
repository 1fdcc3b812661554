import { describe, expect, it } from 'vitest';
import { PRODUCTION, TESTNET } from '../../src/domain/network.js';
import { at, OTHER, position, WALLET } from '../support/fixtures.js';
import { withUow, type UowFactory } from './uow-factory.js';

export function positionRepositoryContract(name: string, make: UowFactory) {
  describe(`PositionRepository contract: ${name}`, () => {
    it('upserts one position per network × wallet × token, exactly, negative PnL included', () =>
      withUow(make, async (uow) => {
        const p = position({ tokenId: 'tok_A', balance: 10n ** 27n + 1n, costBasisUsd: 123_456_789n, realizedPnlUsd: -48_741n });
        await uow.transaction((s) => s.positions.save(p));
        const updated = { ...p, balance: 5n, realizedPnlUsd: -1n, updatedAt: at(1) };
        await uow.transaction((s) => s.positions.save(updated));
        expect(await uow.run((s) => s.positions.get(TESTNET, WALLET, 'tok_A'))).toEqual(updated);
        expect(await uow.run((s) => s.positions.get(TESTNET, WALLET.toLowerCase(), 'tok_A'))).toEqual(updated);
        expect(await uow.run((s) => s.positions.get(PRODUCTION, WALLET, 'tok_A'))).toBeNull();
      }));

    it('lists a wallet’s positions on one network (any case), by token', () =>
      withUow(make, async (uow) => {
        await uow.transaction(async (s) => {
          await s.positions.save(position({ tokenId: 'tok_B' }));
          await s.positions.save(position({ tokenId: 'tok_A' }));
          await s.positions.save(position({ tokenId: 'tok_C', network: PRODUCTION }));
          await s.positions.save(position({ tokenId: 'tok_A', wallet: OTHER }));
        });
        const mine = await uow.run((s) => s.positions.listByWallet(TESTNET, WALLET.toLowerCase()));
        expect(mine.map((p) => p.tokenId)).toEqual(['tok_A', 'tok_B']);
      }));

    it('ranks holders by balance, excluding closed positions, and counts them', () =>
      withUow(make, async (uow) => {
        const wallets = ['0x00000000000000000000000000000000000000a1', '0x00000000000000000000000000000000000000a2', '0x00000000000000000000000000000000000000a3'];
        await uow.transaction(async (s) => {
          await s.positions.save(position({ tokenId: 'tok_H', wallet: wallets[0], balance: 5n * 10n ** 24n }));
          await s.positions.save(position({ tokenId: 'tok_H', wallet: wallets[1], balance: 7n * 10n ** 24n }));
          await s.positions.save(position({ tokenId: 'tok_H', wallet: wallets[2], balance: 0n, costBasisUsd: 0n }));
          await s.positions.save(position({ tokenId: 'tok_H', wallet: WALLET, balance: 5n * 10n ** 24n }));
        });
        const top = await uow.run((s) => s.positions.holders('tok_H', 10));
        expect(top.map((p) => p.wallet)).toEqual([wallets[1], wallets[0], WALLET]);
        expect((await uow.run((s) => s.positions.holders('tok_H', 1))).map((p) => p.wallet)).toEqual([wallets[1]]);
        expect(await uow.run((s) => s.positions.countHolders('tok_H'))).toBe(3);
      }));

    it('finds the positions of named wallets in a token, in any case, in one call', () =>
      withUow(make, async (uow) => {
        await uow.transaction(async (s) => {
          await s.positions.save(position({ tokenId: 'tok_W', balance: 9n }));
          await s.positions.save(position({ tokenId: 'tok_W', wallet: OTHER, balance: 0n, costBasisUsd: 0n }));
          await s.positions.save(position({ tokenId: 'tok_X', wallet: OTHER, balance: 4n }));
        });
        const found = await uow.run((s) => s.positions.ofWallets('tok_W', [WALLET.toLowerCase(), OTHER, '0x00000000000000000000000000000000000000b1']));
        expect(found.map((p) => [p.wallet, p.balance]).sort()).toEqual([[OTHER, 0n], [WALLET, 9n]].sort());
        expect(await uow.run((s) => s.positions.ofWallets('tok_W', []))).toEqual([]);
      }));
  });
}
