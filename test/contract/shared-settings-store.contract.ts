/**
 * The settings every process on one database must agree on (docs/decisions/0032): the first value
 * recorded stands (a second proposal gets it back), an operator's overwrite replaces it, and a
 * rollback records nothing.
 */
import { describe, expect, it } from 'vitest';
import { at } from '../support/fixtures.js';
import { withUow, type UowFactory } from './uow-factory.js';

export function sharedSettingsStoreContract(name: string, make: UowFactory) {
  describe(`SharedSettingsStore contract: ${name}`, () => {
    it('keeps the first value proposed for a name; a different proposal gets it back', () =>
      withUow(make, async (uow) => {
        const factory = { name: 'LAUNCH_FACTORY_84532', value: '0x4C61756E6368466163746f727900000000000000' };
        expect(await uow.transaction((s) => s.sharedSettings.propose(factory, at(0)))).toEqual(factory);
        expect(await uow.transaction((s) => s.sharedSettings.propose({ ...factory, value: '0xother' }, at(1)))).toEqual(factory);
        await uow.transaction((s) => s.sharedSettings.propose({ name: 'PAY_TO_84532', value: '0xpay' }, at(2)));
        expect(await uow.run((s) => s.sharedSettings.list())).toEqual([factory, { name: 'PAY_TO_84532', value: '0xpay' }]);
      }));

    it("an operator's overwrite replaces the value; a rollback records nothing", () =>
      withUow(make, async (uow) => {
        await uow.transaction((s) => s.sharedSettings.propose({ name: 'PAY_TO_8453', value: '0xold' }, at(0)));
        await uow.transaction((s) => s.sharedSettings.overwrite({ name: 'PAY_TO_8453', value: '0xnew' }, at(1)));
        await expect(
          uow.transaction(async (s) => {
            await s.sharedSettings.propose({ name: 'PAY_TO_84532', value: '0xrolled' }, at(2));
            throw new Error('no');
          }),
        ).rejects.toThrow('no');
        expect(await uow.run((s) => s.sharedSettings.list())).toEqual([{ name: 'PAY_TO_8453', value: '0xnew' }]);
      }));
  });
}
