/** MikroORM's options for a DATABASE_URL: the driver, the pool and each connection's settings, the migrations. */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { MikroORM, type Options } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { BetterSqliteDriver } from '@mikro-orm/better-sqlite';
import { MIGRATIONS } from './migrations/index.js';
import type { Dialect } from './sql.js';

export function ormOptionsFor(url: string, poolSize: number): { options: Options; dialect: Dialect; schema: string | undefined; clientUrl?: string } {
  const base = {
    entities: [],
    discovery: { warnWhenNoEntities: false },
    extensions: [Migrator],
    migrations: { migrationsList: MIGRATIONS, silent: true, transactional: true, allOrNothing: true, snapshot: false, tableName: 'schema_migrations' },
    allowGlobalContext: false,
    debug: false,
  } satisfies Partial<Options>;
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
        pool: {
          min: 0,
          max: poolSize,
          afterCreate: (conn: { query: (sql: string, cb: (e: Error | null) => void) => void }, done: (e: Error | null, c: unknown) => void) => {
            if (!schema) return done(null, conn);
            conn.query(`set search_path to "${schema.replace(/"/g, '')}"`, (e) => done(e, conn));
          },
        },
      } as Options,
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
      driver: BetterSqliteDriver,
      dbName: path,
      pool: {
        min: 1,
        max: 1,
        afterCreate: (conn: { exec: (sql: string) => void }, done: (e: Error | null, c: unknown) => void) => {
          // wal_autocheckpoint = 0: checkpoints run on a connection of their own (SqliteCheckpointer).
          // busy_timeout = 0: a statement that meets another connection's lock is retried off the
          // thread (sql.ts retryBusy), not slept on by the synchronous driver.
          try {
            for (const pragma of ['pragma journal_mode = WAL', 'pragma synchronous = NORMAL', 'pragma busy_timeout = 0', 'pragma foreign_keys = ON', 'pragma wal_autocheckpoint = 0']) conn.exec(pragma);
            done(null, conn);
          } catch (e) {
            done(e as Error, conn);
          }
        },
      },
    } as Options,
  };
}

export async function createSchema(options: Options, schema: string): Promise<void> {
  const bootstrap = await MikroORM.init({ ...options, schema: undefined, pool: { min: 0, max: 1 }, extensions: [] } as Options);
  try {
    await bootstrap.em.getConnection().execute(`create schema if not exists "${schema.replace(/"/g, '')}"`);
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
      return (await orm.getMigrator().up()).length;
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
