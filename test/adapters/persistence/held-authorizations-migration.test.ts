/**
 * Upgrading a database to held authorizations (migration 0023, docs/decisions/0067): the OPEN and
 * EXECUTING orders and the PLEDGED pledges of an older version hold their authorizations from the
 * upgrade on — the first of two that share one (what the older version let in) — and an order or
 * pledge that ended holds nothing.
 */
import { describe, expect, it } from 'vitest';
import { migrateUp } from '../../../src/adapters/persistence/mikro-orm/orm-options.js';
import { MikroOrmUnitOfWork } from '../../../src/adapters/persistence/mikro-orm/mikro-orm-unit-of-work.js';
import { heldKeyOf } from '../../../src/app/held/hold-authorization.js';
import { TESTNET } from '../../../src/domain/network.js';
import { migrationDatabases, openBefore } from '../../support/migrations.js';

const FROM = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const nonce = (n: string) => `0x${n.repeat(32)}`;
const authorization = (n: string, extra: Record<string, string> = {}) =>
  JSON.stringify({ ...extra, from: FROM, to: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', value: '5000000', validAfter: '0', validBefore: '1900000000', nonce: nonce(n), signature: `0x${'cd'.repeat(65)}` });

describe.each(migrationDatabases('mig23'))('migration 0023 on %s', (_name, open) => {
  it('gives each open order and pledged pledge of an older version its authorization, the first of two that share one', async () => {
    const { url, cleanup } = open();
    try {
      const orm = await openBefore(url, 'Migration0023HeldAuthorizations');
      await migrateUp(orm);
      const sql = (q: string, params: unknown[]) => orm.em.getConnection().execute(q, params);
      const order = (id: string, kind: string, state: string, n: string, createdAt: number) =>
        sql(
          `insert into orders (order_id, network, token_id, wallet, wallet_lower, kind, trigger_price, usd_amount, tokens, asset, signed_authorization, expires_at, state, created_at, updated_at)
           values (?, ?, 'tok_S', ?, ?, ?, '1000', ?, ?, ?, ?, 1900000000000, ?, ?, ?)`,
          [id, TESTNET, FROM, FROM.toLowerCase(), kind, kind === 'limit_buy' ? '5000000' : null, kind === 'limit_buy' ? null : '5000000', kind === 'limit_buy' ? 'USDC' : null, authorization(n), state, createdAt, createdAt],
        );
      const pledge = (id: string, state: string, n: string, createdAt: number) =>
        sql(
          `insert into pledges (pledge_id, token_id, network, wallet, wallet_lower, usd_amount, state, authorization_json, tokens, created_at, updated_at)
           values (?, 'tok_F', ?, ?, ?, '5000000', ?, ?, '0', ?, ?)`,
          [id, TESTNET, FROM, FROM.toLowerCase(), state, authorization(n, { asset: 'USDC' }), createdAt, createdAt],
        );
      await order('ord_1', 'limit_buy', 'OPEN', 'A1', 1);
      await order('ord_2', 'limit_buy', 'OPEN', 'A1', 2); // the same authorization, let in by the older version
      await order('ord_3', 'limit_buy', 'CANCELLED', 'B2', 3);
      await order('ord_4', 'stop_loss', 'EXECUTING', 'C3', 4);
      await pledge('pld_1', 'PLEDGED', 'D4', 5);
      await pledge('pld_2', 'PLEDGED', 'A1', 6);
      await pledge('pld_3', 'RELEASED', 'E5', 7);
      await pledge('pld_4', 'PLEDGED', 'F6', 8); // an older pledge…
      await order('ord_5', 'limit_buy', 'OPEN', 'F6', 9); // …and a newer order on its authorization: the pledge came first
      await orm.close(true);

      const uow = await MikroOrmUnitOfWork.open({ url });
      try {
        const holder = (asset: string, n: string) => uow.run((s) => s.heldAuthorizations.holderOf(heldKeyOf(TESTNET, asset, { from: FROM, nonce: nonce(n) })));
        expect(await holder('USDC', 'A1')).toEqual({ kind: 'order', id: 'ord_1' });
        expect(await holder('USDC', 'B2')).toBeNull();
        expect(await holder('tok_S', 'C3')).toEqual({ kind: 'order', id: 'ord_4' });
        expect(await holder('USDC', 'C3')).toBeNull(); // a sell order holds the token's authorization, not USDC's
        expect(await holder('USDC', 'D4')).toEqual({ kind: 'pledge', id: 'pld_1' });
        expect(await holder('USDC', 'E5')).toBeNull();
        expect(await holder('USDC', 'F6')).toEqual({ kind: 'pledge', id: 'pld_4' });
      } finally {
        await uow.close();
      }
    } finally {
      await cleanup();
    }
  });
});
