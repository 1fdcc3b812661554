/** The RaiseStore contract alone, on every adapter (it also runs in persistence.contract.ts with every other store). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { MemoryUnitOfWork } from '../../src/adapters/persistence/memory/memory-unit-of-work.js';
import { MikroOrmUnitOfWork } from '../../src/adapters/persistence/mikro-orm/mikro-orm-unit-of-work.js';
import { dropSchema, POSTGRES_URL } from '../support/postgres.js';
import { describeWithServices } from '../support/services.js';
import { raiseStoreContract } from './raise-store.contract.js';

raiseStoreContract('memory', async () => ({ uow: new MemoryUnitOfWork() }));
raiseStoreContract('MikroORM on SQLite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'launchpad-sqlite-'));
  const uow = await MikroOrmUnitOfWork.open({ url: `sqlite:${join(dir, 'test.db')}` });
  return { uow, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
});
describeWithServices('PostgreSQL', () =>
  raiseStoreContract('MikroORM on PostgreSQL', async () => {
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const uow = await MikroOrmUnitOfWork.open({ url: `${POSTGRES_URL}?schema=${schema}` });
    return { uow, cleanup: () => dropSchema(schema) };
  }),
);
