/** The persistence contracts on MikroORM: SQLite (a temporary file) and PostgreSQL (own schema per test). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { MikroOrmUnitOfWork } from '../../src/adapters/persistence/mikro-orm/mikro-orm-unit-of-work.js';
import { changeFeedContract } from './change-feed.contract.js';
import { persistenceContracts } from './persistence.contract.js';
import { signerLocksContract } from './signer-locks.contract.js';
import type { UowFactory } from './uow-factory.js';
import { dropSchema, POSTGRES_URL } from '../support/postgres.js';
import { describeWithServices } from '../support/services.js';
import { queryDatabase } from '../support/service-process.js';

persistenceContracts('MikroORM on SQLite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'launchpad-sqlite-'));
  const uow = await MikroOrmUnitOfWork.open({ url: `sqlite:${join(dir, 'test.db')}` });
  return { uow, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
});

const postgres: UowFactory = async () => {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const uow = await MikroOrmUnitOfWork.open({ url: `${POSTGRES_URL}?schema=${schema}` });
  return { uow, cleanup: () => dropSchema(schema) };
};

describeWithServices('PostgreSQL', () => {
  persistenceContracts('MikroORM on PostgreSQL', postgres);
  changeFeedContract('MikroORM on PostgreSQL (LISTEN/NOTIFY)', postgres, { echoes: true });
});

changeFeedContract('MikroORM on SQLite (its event log, read every 50 ms)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'launchpad-sqlite-'));
  const uow = await MikroOrmUnitOfWork.open({ url: `sqlite:${join(dir, 'test.db')}` });
  return { uow, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
}, { echoes: true });

describeWithServices('PostgreSQL advisory locks', () => signerLocksContract('PostgreSQL advisory locks (two processes on one schema)', async () => {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const url = `${POSTGRES_URL}?schema=${schema}`;
  const [ua, ub] = [await MikroOrmUnitOfWork.open({ url, processName: 'process a' }), await MikroOrmUnitOfWork.open({ url, processName: 'process b' })];
  return {
    a: ua.signerLocks!,
    b: ub.signerLocks!,
    // What a kill -9 of a's process does to its session, from the server's side.
    crashA: async () => {
      await queryDatabase(url, `select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'launchpad signer process a'`);
    },
    askIntent: () =>
      ub.transaction((s) =>
        s.intents.request({ kind: 'pull', paymentId: 'pay_1', network: 'eip155:84532', tokenId: 'tok_X', request: '{}', replaces: null, requestedAt: new Date() }),
      ),
    cleanup: async () => {
      await ua.close();
      await ub.close();
      await dropSchema(schema);
    },
  };
}));
