/** Databases as an older version left them, to test what a migration does to their rows. */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MikroORM, type Options } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { BetterSqliteDriver } from '@mikro-orm/better-sqlite';
import { MIGRATIONS } from '../../src/adapters/persistence/mikro-orm/migrations/index.js';
import { dropSchema, POSTGRES_URL } from './postgres.js';
import { withoutServices } from './services.js';

/** The database at `url` with every migration before `migration` applied (none after it). */
export async function openBefore(url: string, migration: string): Promise<MikroORM> {
  const migrations = { migrationsList: MIGRATIONS.slice(0, MIGRATIONS.findIndex((m) => m.name === migration)), tableName: 'schema_migrations', silent: true, snapshot: false };
  const base = { entities: [], discovery: { warnWhenNoEntities: false }, extensions: [Migrator], migrations, allowGlobalContext: true };
  if (url.startsWith('sqlite:')) return MikroORM.init({ ...base, driver: BetterSqliteDriver, dbName: url.slice('sqlite:'.length) } as Options);
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema')!;
  parsed.searchParams.delete('schema');
  const setup = await MikroORM.init({ ...base, driver: PostgreSqlDriver, clientUrl: parsed.toString(), extensions: [], pool: { min: 0, max: 1 } } as Options);
  await setup.em.getConnection().execute(`create schema if not exists "${schema}"`);
  await setup.close(true);
  return MikroORM.init({
    ...base,
    driver: PostgreSqlDriver,
    clientUrl: parsed.toString(),
    schema,
    pool: {
      min: 0,
      max: 1,
      afterCreate: (conn: { query: (sql: string, cb: (e: Error | null) => void) => void }, done: (e: Error | null, c: unknown) => void) =>
        conn.query(`set search_path to "${schema}"`, (e) => done(e, conn)),
    },
  } as Options);
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
