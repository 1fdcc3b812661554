/** Databases as an older version left them, to test what a migration does to their rows. */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MikroORM } from '@mikro-orm/core';
import { MIGRATIONS } from '../../src/adapters/persistence/mikro-orm/migrations/index.js';
import { createSchema, ormOptionsFor } from '../../src/adapters/persistence/mikro-orm/orm-options.js';
import { dropSchema, POSTGRES_URL } from './postgres.js';
import { withoutServices } from './services.js';

/** The database at `url` with every migration before `migration` applied (none after it). */
export async function openBefore(url: string, migration: string): Promise<MikroORM> {
  const { options, schema } = ormOptionsFor(url, 1);
  if (schema) await createSchema(options, schema);
  const migrationsList = MIGRATIONS.slice(0, MIGRATIONS.findIndex((m) => m.name === migration));
  return MikroORM.init({ ...options, allowGlobalContext: true, migrations: { ...options.migrations, migrationsList } });
}

/** A fresh SQLite file and a fresh PostgreSQL schema, each with its cleanup. */
export function migrationDatabases(prefix: string): [string, () => { url: string; cleanup: () => Promise<void> }][] {
  return withoutServices([
    [
      'SQLite',
      () => {
        const dir = mkdtempSync(join(tmpdir(), `launchpad-${prefix}-`));
        return { url: `sqlite:${join(dir, 'm.db')}`, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
      },
    ],
    [
      'PostgreSQL',
      () => {
        const schema = `${prefix}_${randomBytes(5).toString('hex')}`;
        return { url: `${POSTGRES_URL}?schema=${schema}`, cleanup: () => dropSchema(schema) };
      },
    ],
  ]);
}
