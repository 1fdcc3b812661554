import { describe, expect, it } from 'vitest';
import { newGraduationStep, PENDING_POOL } from '../../src/domain/graduation.js';
import { TESTNET } from '../../src/domain/network.js';
import { transitionOutbox } from '../../src/domain/outbox.js';
import { at, id, token } from '../support/fixtures.js';
import { withUow, type UowFactory } from './uow-factory.js';

export function graduationStoreContract(name: string, make: UowFactory) {
  describe(`GraduationStore contract: ${name}`, () => {
    const step = (tokenId: string, s: 'approve-token' | 'add-liquidity' = 'approve-token') =>
      newGraduationStep({ graduationId: id('grad'), network: TESTNET, tokenId, step: s, tokenAmount: 206_900_000n * 10n ** 18n + 1n, usdAmount: 10n ** 20n + 7n, now: at(0) });

    it('queues each step of a token once, keeps exact amounts, and moves by compare-and-set', () =>
      withUow(make, async (uow) => {
        const g = step('tok_a');
        expect(await uow.transaction((s) => s.graduations.enqueue(g))).toEqual(g);
        expect(await uow.transaction((s) => s.graduations.enqueue(step('tok_a')))).toEqual(g);
        const other = step('tok_a', 'add-liquidity');
        expect(await uow.transaction((s) => s.graduations.enqueue(other))).toEqual(other);
        const sent = transitionOutbox(g, 'SENT', at(1), { txHash: '0xh', rawTx: '0xr', attempts: 1 });
        expect(await uow.run((s) => s.graduations.update(sent, 'PENDING'))).toBe(true);
        expect(await uow.run((s) => s.graduations.update(sent, 'PENDING'))).toBe(false);
        const done = transitionOutbox({ ...sent, pair: '0x00000000000000000000000000000000000000aa' }, 'CONFIRMED', at(2));
        expect(await uow.run((s) => s.graduations.update(done, 'SENT'))).toBe(true);
        expect(await uow.run((s) => s.graduations.get(g.graduationId))).toEqual(done);
        expect(await uow.run((s) => s.graduations.findBySource('tok_a:add-liquidity'))).toEqual(other);
      }));

    it("keeps a token's pool", () =>
      withUow(make, async (uow) => {
        const t = token();
        await uow.transaction((s) => s.tokens.insert(t));
        expect((await uow.run((s) => s.tokens.get(t.tokenId)))!.pool).toBeNull();
        const pool = { ...PENDING_POOL, state: 'CREATED' as const, address: '0x00000000000000000000000000000000000000aa', txHash: '0xabc' };
        await uow.transaction((s) => s.tokens.update({ ...t, pool }));
        expect((await uow.run((s) => s.tokens.get(t.tokenId)))!.pool).toEqual(pool);
      }));
  });
}
