/** The two real databases end-to-end tests run on: a SQLite file of its own, a PostgreSQL schema of its own. */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MikroOrmUnitOfWork, type OpenOptions } from '../../src/adapters/persistence/mikro-orm/mikro-orm-unit-of-work.js';
import type { UnitOfWork } from '../../src/ports/unit-of-work.js';
import { dropSchema, POSTGRES_URL } from './postgres.js';
import { withoutServices } from './services.js';

export type OpenStore = () => Promise<{ uow: UnitOfWork; url: string; cleanup: () => Promise<void> }>;

/** `[name, open]` pairs for `describe.each`; `prefix` names the temporary directory and schema, `options` are the unit of work's. */
export function testDatabases(prefix: string, options: Omit<OpenOptions, 'url'> = {}): [string, OpenStore][] {
  return withoutServices([
    [
      'SQLite',
      async () => {
        const dir = mkdtempSync(join(tmpdir(), `launchpad-${prefix}-db-`));
        const url = `sqlite:${join(dir, 'service.db')}`;
        return { uow: await MikroOrmUnitOfWork.open({ ...options, url }), url, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
      },
    ],
    [
      'PostgreSQL',
      async () => {
        const schema = `${prefix}_${randomBytes(5).toString('hex')}`;
        const url = `${POSTGRES_URL}?schema=${schema}`;
        return { uow: await MikroOrmUnitOfWork.open({ ...options, url }), url, cleanup: () => dropSchema(schema) };
      },
    ],
  ]);
}
