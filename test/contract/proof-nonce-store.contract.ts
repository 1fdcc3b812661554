import { describe, expect, it } from 'vitest';
import { at, OTHER, WALLET } from '../support/fixtures.js';
import { withUow, type UowFactory } from './uow-factory.js';

export function proofNonceStoreContract(name: string, make: UowFactory) {
  describe(`ProofNonceStore contract: ${name}`, () => {
    it('a nonce is spent once per wallet, in any letter case; concurrent uses: exactly one first', () =>
      withUow(make, async (uow) => {
        const uses = await Promise.all(Array.from({ length: 20 }, () => uow.run((s) => s.proofNonces.use(WALLET, 'n0nce1234abcd', at(60_000)))));
        expect(uses.filter(Boolean)).toHaveLength(1);
        expect(await uow.run((s) => s.proofNonces.use(WALLET.toLowerCase(), 'n0nce1234abcd', at(60_000)))).toBe(false);
        // another wallet's nonce, or another nonce, is another proof
        expect(await uow.run((s) => s.proofNonces.use(OTHER, 'n0nce1234abcd', at(60_000)))).toBe(true);
        expect(await uow.run((s) => s.proofNonces.use(WALLET, 'N0NCE1234ABCD', at(60_000)))).toBe(true);
      }));

    it('purges only expired nonces, oldest first, in bounded runs', () =>
      withUow(make, async (uow) => {
        for (let i = 0; i < 5; i++) await uow.run((s) => s.proofNonces.use(WALLET, `nonce${i}`, at(i * 1_000)));
        expect(await uow.run((s) => s.proofNonces.purgeExpired(at(3_000), 2))).toBe(2);
        expect(await uow.run((s) => s.proofNonces.purgeExpired(at(3_000), 10))).toBe(1);
        expect(await uow.run((s) => s.proofNonces.purgeExpired(at(3_000), 10))).toBe(0);
        // purged nonces are free again (their proofs are expired anyway); kept ones are not
        expect(await uow.run((s) => s.proofNonces.use(WALLET, 'nonce0', at(9_000)))).toBe(true);
        expect(await uow.run((s) => s.proofNonces.use(WALLET, 'nonce3', at(9_000)))).toBe(false);
      }));
  });
}
