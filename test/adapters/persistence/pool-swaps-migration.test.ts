/**
 * Upgrading a database to swaps in their own store (migration 0011, docs/decisions/0027): a swap
 * recorded before this version sits in token_pulls as `<payment>:swap`. After the upgrade it is
 * the payment's swap — the one a retry follows — and no longer a pull; the pulls stay as they were.
 */
import { describe, expect, it } from 'vitest';
import { migrateUp } from '../../../src/adapters/persistence/mikro-orm/orm-options.js';
import { MikroOrmUnitOfWork } from '../../../src/adapters/persistence/mikro-orm/mikro-orm-unit-of-work.js';
import { TESTNET } from '../../../src/domain/network.js';
import { migrationDatabases, openBefore } from '../../support/migrations.js';

const hash = (h: string) => `0x${h.repeat(32)}`;

describe.each(migrationDatabases('mig11'))('migration 0011 on %s', (_name, open) => {
  it('moves each `:swap` row of token_pulls to pool_swaps under its payment, and leaves the pulls', async () => {
    const { url, cleanup } = open();
    try {
      const orm = await openBefore(url, 'Migration0011PoolSwaps');
      await migrateUp(orm); // tried again if another file's schema vanishes under its listing of tables
      const pull = (paymentId: string, h: string) =>
        orm.em
          .getConnection()
          .execute(`insert into token_pulls (payment_id, network, token_id, tx_hash, raw_tx, created_at) values (?, ?, 'tok_S', ?, ?, 1700000000000)`, [
            paymentId,
            TESTNET,
            hash(h),
            `0x02${h}`,
          ]);
      await pull('pay_sell', '1a'); // a pool sell: its pull …
      await pull('pay_sell:swap', '2b'); // … and its swap
      await pull('pay_buy:swap', '3c'); // a pool buy: a swap only
      await orm.close(true);

      const uow = await MikroOrmUnitOfWork.open({ url });
      try {
        const row = (paymentId: string, h: string) => ({ paymentId, network: TESTNET, tokenId: 'tok_S', txHash: hash(h), rawTx: `0x02${h}`, createdAt: new Date(1700000000000) });
        expect(await uow.run((s) => s.swaps.get('pay_sell'))).toEqual(row('pay_sell', '2b'));
        expect(await uow.run((s) => s.swaps.get('pay_buy'))).toEqual(row('pay_buy', '3c'));
        expect(await uow.run((s) => s.pulls.get('pay_sell'))).toEqual(row('pay_sell', '1a'));
        for (const gone of ['pay_sell:swap', 'pay_buy:swap', 'pay_buy']) expect(await uow.run((s) => s.pulls.get(gone))).toBeNull();
        expect(await uow.run((s) => s.pulls.byTransaction(TESTNET, hash('2b')))).toBeNull();
      } finally {
        await uow.close();
      }
    } finally {
      await cleanup();
    }
  });
});
