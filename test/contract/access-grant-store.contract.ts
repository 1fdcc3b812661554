import { describe, expect, it } from 'vitest';
import { at, OTHER, WALLET } from '../support/fixtures.js';
import { withUow, type UowFactory } from './uow-factory.js';

export function accessGrantStoreContract(name: string, make: UowFactory) {
  describe(`AccessGrantStore contract: ${name}`, () => {
    it('grants a wallet a resource until a time, in any letter case; nothing else is granted', () =>
      withUow(make, async (uow) => {
        await uow.run((s) => s.accessGrants.grant(WALLET, 'token_info', at(300_000)));
        expect(await uow.run((s) => s.accessGrants.validUntil(WALLET.toLowerCase(), 'token_info', at(0)))).toEqual(at(300_000));
        expect(await uow.run((s) => s.accessGrants.validUntil(WALLET, 'token_info', at(299_999)))).toEqual(at(300_000));
        expect(await uow.run((s) => s.accessGrants.validUntil(WALLET, 'token_info', at(300_000)))).toBeNull();
        expect(await uow.run((s) => s.accessGrants.validUntil(OTHER, 'token_info', at(0)))).toBeNull();
        expect(await uow.run((s) => s.accessGrants.validUntil(WALLET, 'token_sell', at(0)))).toBeNull();
      }));

    it('a grant only ever extends, whatever the order of concurrent grants', () =>
      withUow(make, async (uow) => {
        const ends = [5, 9, 2, 7, 1].map((m) => at(m * 60_000));
        await Promise.all(ends.map((until) => uow.run((s) => s.accessGrants.grant(WALLET, 'token_info', until))));
        expect(await uow.run((s) => s.accessGrants.validUntil(WALLET, 'token_info', at(0)))).toEqual(at(9 * 60_000));
        await uow.run((s) => s.accessGrants.grant(WALLET, 'token_info', at(60_000)));
        expect(await uow.run((s) => s.accessGrants.validUntil(WALLET, 'token_info', at(0)))).toEqual(at(9 * 60_000));
      }));

    it('a grant made in a rolled-back transaction does not exist', () =>
      withUow(make, async (uow) => {
        await expect(
          uow.transaction(async (s) => {
            await s.accessGrants.grant(WALLET, 'token_info', at(300_000));
            throw new Error('abort');
          }),
        ).rejects.toThrow('abort');
        expect(await uow.run((s) => s.accessGrants.validUntil(WALLET, 'token_info', at(0)))).toBeNull();
      }));

    it('purges ended grants only, in bounded runs', () =>
      withUow(make, async (uow) => {
        for (let i = 1; i <= 4; i++) await uow.run((s) => s.accessGrants.grant(WALLET, `r${i}`, at(i * 1_000)));
        expect(await uow.run((s) => s.accessGrants.purgeExpired(at(3_500), 2))).toBe(2);
        expect(await uow.run((s) => s.accessGrants.purgeExpired(at(3_500), 2))).toBe(1);
        expect(await uow.run((s) => s.accessGrants.purgeExpired(at(3_500), 2))).toBe(0);
        expect(await uow.run((s) => s.accessGrants.validUntil(WALLET, 'r4', at(0)))).toEqual(at(4_000));
      }));
  });
}
