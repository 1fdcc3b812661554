/** The persistence contracts on MikroORM: SQLite (a temporary file) and PostgreSQL (own schema per test). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { MikroOrmUnitOfWork } from '../../src/adapters/persistence/mikro-orm/mikro-orm-unit-of-work.js';
import { changeFeedContract } from './change-feed.contract.js';
import { persistenceContracts } from './persistence.contract.js';
import type { UowFactory } from './uow-factory.js';
import { dropSchema, POSTGRES_URL } from '../support/postgres.js';
import { describeWithServices } from '../support/services.js';

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
  changeFeedContract('MikroORM on PostgreSQL (LISTEN/NOTIFY)', postgres);
});

changeFeedContract('MikroORM on SQLite (its event log, read every 50 ms)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'launchpad-sqlite-'));
  const uow = await MikroOrmUnitOfWork.open({ url: `sqlite:${join(dir, 'test.db')}` });
  return { uow, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
});
