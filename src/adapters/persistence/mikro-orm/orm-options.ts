/** MikroORM's options for a DATABASE_URL: the driver, the pool and each connection's settings, the migrations. */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { MikroORM, type Options as AllOptions } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { SqliteDriver } from '@mikro-orm/sqlite';
import { MIGRATIONS } from './migrations/index.js';
import type { Dialect } from './sql.js';

/** What MikroORM.init takes. */
export type Options = Partial<AllOptions>;

export function ormOptionsFor(url: string, poolSize: number): { options: Options; dialect: Dialect; schema: string | undefined; clientUrl?: string } {
  const base = {
    entities: [],
    discovery: { warnWhenNoEntities: false },
    extensions: [Migrator],
    migrations: { migrationsList: MIGRATIONS, silent: true, transactional: true, allOrNothing: true, snapshot: false, tableName: 'schema_migrations' },
    allowGlobalContext: false,
    debug: false,
  } satisfies Options;
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    const parsed = new URL(url);
    const schema = parsed.searchParams.get('schema') ?? undefined;
    parsed.searchParams.delete('schema');
    return {
      dialect: 'postgresql',
      schema,
      clientUrl: parsed.toString(),
      options: {
        ...base,
        driver: PostgreSqlDriver,
        clientUrl: parsed.toString(),
        ...(schema ? { schema } : {}),
        // The schema is each connection's search_path from its start (a startup option: no statement of its own).
        ...(schema ? { driverOptions: { options: searchPathOption(schema) } } : {}),
        pool: { min: 0, max: poolSize },
      },
    };
  }
  if (!url.startsWith('sqlite:')) throw new Error(`unsupported DATABASE_URL: ${url.split(':')[0]}`);
  const path = url.slice('sqlite:'.length) || ':memory:';
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  return {
    dialect: 'sqlite',
    schema: undefined,
    options: {
      ...base,
      driver: SqliteDriver,
      dbName: path,
      // timeout 0: a statement that meets another connection's lock is retried off the thread
      // (sql.ts retryBusy), not slept on by the synchronous driver. The pragmas: SQLITE_PRAGMAS.
      driverOptions: { timeout: 0 },
    },
  };
}

/**
 * The writer's settings, run on the one connection when the unit of work opens.
 * wal_autocheckpoint = 0: checkpoints run on a connection of their own (SqliteCheckpointer).
 */
export const SQLITE_PRAGMAS = ['pragma journal_mode = WAL', 'pragma synchronous = NORMAL', 'pragma busy_timeout = 0', 'pragma foreign_keys = ON', 'pragma wal_autocheckpoint = 0'];

/** A PostgreSQL connection's startup option that makes `schema` its search_path (no statement of its own). */
export function searchPathOption(schema: string): string {
  return `-c search_path=${quoteIdent(schema)}`;
}

/** A PostgreSQL identifier, quoted. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '')}"`;
}

export async function createSchema(options: Options, schema: string): Promise<void> {
  const bootstrap = await MikroORM.init({ ...options, schema: undefined, driverOptions: undefined, pool: { min: 0, max: 1 }, extensions: [] });
  try {
    await bootstrap.em.getConnection().execute(`create schema if not exists ${quoteIdent(schema)}`);
  } finally {
    await bootstrap.close(true);
  }
}

/**
 * Runs the pending migrations; returns how many ran. MikroORM's migrator first lists every table
 * of the database — every schema's, not only ours — casting each name to a regclass, so a table
 * or schema that another client drops meanwhile (another application on a shared PostgreSQL,
 * another test's schema) fails the listing with "… does not exist". Migrations are idempotent
 * and each runs in a transaction, so the run is tried again (up to 5 times) after such a failure.
 */
export async function migrateUp(orm: MikroORM, pauseMs = 50): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    try {
      return (await orm.migrator.up()).length;
    } catch (e) {
      if (attempt >= 5 || !catalogChangedUnderListing(e)) throw e;
      await new Promise((resolve) => setTimeout(resolve, pauseMs * attempt));
    }
  }
}

/** The migrator's listing of all tables failed because one vanished while it ran. */
export function catalogChangedUnderListing(e: unknown): boolean {
  return e instanceof Error && /information_schema\.tables/.test(e.message) && /\bdoes not exist\b/.test(e.message);
}
