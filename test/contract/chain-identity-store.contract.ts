/**
 * Which chain each network's books were kept on (docs/decisions/0066): the first identity
 * recorded for a network stands (a second proposal gets it back), an overwrite replaces it, a
 * rollback records nothing, and a factory with no code is kept as such.
 */
import { describe, expect, it } from 'vitest';
import type { ChainIdentity } from '../../src/domain/chain-identity.js';
import { PRODUCTION, TESTNET } from '../../src/domain/network.js';
import { at } from '../support/fixtures.js';
import { withUow, type UowFactory } from './uow-factory.js';

const identity = (over: Partial<ChainIdentity> = {}): ChainIdentity => ({
  network: TESTNET,
  chainId: 84532,
  genesisHash: `0x${'ab'.repeat(32)}`,
  factory: '0x4c61756e6368466163746f727900000000000000',
  factoryCodeHash: `0x${'cd'.repeat(32)}`,
  ...over,
});

export function chainIdentityStoreContract(name: string, make: UowFactory) {
  describe(`ChainIdentityStore contract: ${name}`, () => {
    it('keeps the first identity proposed for a network; a different proposal gets it back; networks apart', () =>
      withUow(make, async (uow) => {
        expect(await uow.run((s) => s.chainIdentities.get(TESTNET))).toBeNull();
        const first = identity();
        expect(await uow.transaction((s) => s.chainIdentities.propose(first, at(0)))).toEqual(first);
        expect(await uow.transaction((s) => s.chainIdentities.propose(identity({ genesisHash: `0x${'ef'.repeat(32)}` }), at(1)))).toEqual(first);
        const production = identity({ network: PRODUCTION, chainId: 8453, factoryCodeHash: null });
        expect(await uow.transaction((s) => s.chainIdentities.propose(production, at(2)))).toEqual(production);
        expect(await uow.run((s) => s.chainIdentities.get(TESTNET))).toEqual(first);
        expect(await uow.run((s) => s.chainIdentities.get(PRODUCTION))).toEqual(production);
      }));

    it('an overwrite replaces the identity; a rollback records nothing', () =>
      withUow(make, async (uow) => {
        await uow.transaction((s) => s.chainIdentities.propose(identity(), at(0)));
        const changed = identity({ factoryCodeHash: `0x${'01'.repeat(32)}` });
        await uow.transaction((s) => s.chainIdentities.overwrite(changed, at(1)));
        await expect(
          uow.transaction(async (s) => {
            await s.chainIdentities.propose(identity({ network: PRODUCTION, chainId: 8453 }), at(2));
            await s.chainIdentities.overwrite(identity({ chainId: 1 }), at(2));
            throw new Error('no');
          }),
        ).rejects.toThrow('no');
        expect(await uow.run((s) => s.chainIdentities.get(TESTNET))).toEqual(changed);
        expect(await uow.run((s) => s.chainIdentities.get(PRODUCTION))).toBeNull();
      }));
  });
}
