/**
 * Upgrading a database to positions that follow transfers (migration 0010, docs/decisions/0020):
 * tokens a sell booked as "received by transfer" before this version were not remembered, and the
 * indexer will book those transfers from the first deployment on. Each position therefore starts
 * with what its trades do not explain — on SQLite and PostgreSQL, exactly (amounts past 2^63).
 */
import { describe, expect, it } from 'vitest';
import { migrateUp } from '../../../src/adapters/persistence/mikro-orm/orm-options.js';
import { MikroOrmUnitOfWork } from '../../../src/adapters/persistence/mikro-orm/mikro-orm-unit-of-work.js';
import { pad } from '../../../src/adapters/persistence/kit/token-order.js';
import { TESTNET } from '../../../src/domain/network.js';
import { migrationDatabases, openBefore } from '../../support/migrations.js';

const E24 = 10n ** 24n;
const [W5, W6, W7] = ['0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc', '0x976EA74026E726554dB657fA54763abd0C3a0aa9', '0x14dC79964da2C08b23698B3D3cc7Ca32193d9955'];

/** The database as version 0009 left it. */
const before0010 = (url: string) => openBefore(url, 'Migration0010TokenTransfers');

const databases = migrationDatabases('mig10');

describe.each(databases)('migration 0010 on %s', (_name, open) => {
  it('starts each position’s prebooked tokens at what its trades do not explain', async () => {
    const { url, cleanup } = open();
    try {
      const orm = await before0010(url);
      await migrateUp(orm); // tried again if another file's schema vanishes under its listing of tables
      const run = (sql: string, params: unknown[]) => orm.em.getConnection().execute(sql, params);
      let n = 0;
      const trade = (wallet: string, side: 'buy' | 'sell', tokens: bigint) =>
        run(
          `insert into trades (trade_id, network, token_id, wallet, side, usd_amount, fee_usd, token_amount, payment_id, settlement_tx, created_at) values (?, ?, 'tok_M', ?, ?, '1000', '10', ?, null, null, 0)`,
          [`trd_${(n += 1)}`, TESTNET, wallet, side, tokens.toString()],
        );
      const position = (wallet: string, balance: bigint) =>
        run(
          `insert into positions (network, wallet_lower, token_id, wallet, balance, balance_key, cost_basis_usd, realized_pnl_usd, updated_at) values (?, ?, 'tok_M', ?, ?, ?, '0', '0', 0)`,
          [TESTNET, wallet.toLowerCase(), wallet, balance.toString(), pad(balance)],
        );
      // #5 bought twice and sold part: its trades explain its balance.
      await trade(W5, 'buy', 6n * E24 + 1n);
      await trade(W5, 'buy', 4n * E24);
      await trade(W5, 'sell', 3n * E24);
      await position(W5, 7n * E24 + 1n);
      // #6 bought 5 and sold 6: one came by transfer. #7 only sold what it received.
      await trade(W6, 'buy', 5n * E24);
      await trade(W6, 'sell', 6n * E24);
      await position(W6, 0n);
      await trade(W7, 'sell', 4n * E24 + 7n);
      await position(W7, 0n);
      await orm.close(true);

      const uow = await MikroOrmUnitOfWork.open({ url });
      try {
        const prebooked = async (w: string) => (await uow.run((s) => s.positions.get(TESTNET, w, 'tok_M')))!.prebookedIn;
        expect([await prebooked(W5), await prebooked(W6), await prebooked(W7)]).toEqual([0n, E24, 4n * E24 + 7n]);
        expect(await uow.run((s) => s.transfers.cursor(TESTNET))).toBeNull();
      } finally {
        await uow.close();
      }
    } finally {
      await cleanup();
    }
  });
});
