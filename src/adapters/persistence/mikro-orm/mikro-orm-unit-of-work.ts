/**
 * The unit of work on MikroORM: one database transaction per unit, on a forked EntityManager
 * (no identity map shared between requests), with the stores bound to it. SQLite is the
 * embedded default (WAL, synchronous=NORMAL, busy timeout, the write lock taken when a
 * transaction begins); PostgreSQL for scale (row locks per token). The schema comes from the
 * committed migrations, run at open — never from schema sync.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { MikroORM, type Options } from '@mikro-orm/core';
import type { EntityManager as KnexEntityManager } from '@mikro-orm/knex';
import { Migrator } from '@mikro-orm/migrations';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { SqliteDriver } from '@mikro-orm/sqlite';
import type { Stores, UnitOfWork } from '../../../ports/unit-of-work.js';
import { Migration0001Initial } from './migrations/migration-0001-initial.js';
import { Migration0002PaymentSignature } from './migrations/migration-0002-payment-signature.js';
import { Migration0003X402Extensions } from './migrations/migration-0003-x402-extensions.js';
import { Migration0004OnChainTokens } from './migrations/migration-0004-on-chain-tokens.js';
import { Migration0005PaymentAssets } from './migrations/migration-0005-payment-assets.js';
import { MikroOrmAccessGrantStore } from './mikro-orm-access-grant-store.js';
import { MikroOrmEventLog } from './mikro-orm-event-log.js';
import { MikroOrmPaymentIdentifierStore } from './mikro-orm-payment-identifier-store.js';
import { MikroOrmPaymentStore } from './mikro-orm-payment-store.js';
import { MikroOrmOutboxStore } from './mikro-orm-outbox-store.js';
import { MikroOrmTokenPullStore } from './mikro-orm-token-pull-store.js';
import { DELIVERIES, DEPLOYMENTS, PAYOUTS } from './outbox-tables.js';
import { MikroOrmPositionRepository } from './mikro-orm-position-repository.js';
import { MikroOrmProofNonceStore } from './mikro-orm-proof-nonce-store.js';
import { MikroOrmAssetQuoteStore } from './mikro-orm-asset-quote-store.js';
import { MikroOrmQuoteStore } from './mikro-orm-quote-store.js';
import { MikroOrmTokenRepository } from './mikro-orm-token-repository.js';
import { MikroOrmTradeLedger } from './mikro-orm-trade-ledger.js';
import { runnerFor, Sql, type Dialect, type Runner } from './sql.js';
import { asUnavailable } from './unavailable.js';

export const MIGRATIONS = [
  { name: 'Migration0001Initial', class: Migration0001Initial },
  { name: 'Migration0002PaymentSignature', class: Migration0002PaymentSignature },
  { name: 'Migration0003X402Extensions', class: Migration0003X402Extensions },
  { name: 'Migration0004OnChainTokens', class: Migration0004OnChainTokens },
  { name: 'Migration0005PaymentAssets', class: Migration0005PaymentAssets },
];

export interface OpenOptions {
  /** `sqlite:<path>`, `sqlite::memory:`, or `postgres://…[?schema=name]`. */
  url: string;
  /** PostgreSQL connections per process. */
  poolSize?: number;
}

function config(url: string, poolSize: number): { options: Options; dialect: Dialect; schema: string | undefined } {
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
      driver: SqliteDriver,
      dbName: path,
      pool: {
        min: 1,
        max: 1,
        afterCreate: (conn: { run: (sql: string, cb: (e: Error | null) => void) => void }, done: (e: Error | null, c: unknown) => void) => {
          const pragmas = ['pragma journal_mode = WAL', 'pragma synchronous = NORMAL', 'pragma busy_timeout = 5000', 'pragma foreign_keys = ON'];
          const next = (i: number) => (i === pragmas.length ? done(null, conn) : conn.run(pragmas[i]!, (e) => (e ? done(e, conn) : next(i + 1))));
          next(0);
        },
      },
    } as Options,
  };
}

export class MikroOrmUnitOfWork implements UnitOfWork {
  private constructor(
    private readonly orm: MikroORM,
    readonly dialect: Dialect,
  ) {}

  static async open(options: OpenOptions): Promise<MikroOrmUnitOfWork> {
    const { options: ormOptions, dialect, schema } = config(options.url, options.poolSize ?? 10);
    if (dialect === 'postgresql' && schema) await createSchema(ormOptions, schema);
    const orm = await MikroORM.init(ormOptions);
    await orm.getMigrator().up();
    return new MikroOrmUnitOfWork(orm, dialect);
  }

  async transaction<T>(work: (stores: Stores) => Promise<T>): Promise<T> {
    return this.withConnection(async (run) => {
      // SQLite: BEGIN IMMEDIATE takes the write lock now, so two writers never both read and
      // then collide (a second process waits up to the busy timeout). PostgreSQL locks rows as
      // the stores touch them (SELECT … FOR UPDATE on the token).
      await run(this.dialect === 'sqlite' ? 'begin immediate' : 'begin', []);
      try {
        const result = await work(stores(new Sql(run, this.dialect)));
        await run('commit', []);
        return result;
      } catch (e) {
        await run('rollback', []).catch(() => undefined);
        throw e;
      }
    });
  }

  async read<T>(work: (stores: Stores) => Promise<T>): Promise<T> {
    return this.withConnection((run) => work(stores(new Sql(run, this.dialect))));
  }

  /**
   * One connection from MikroORM's pool, on a forked EntityManager (nothing is shared between
   * units of work), for the duration of `fn`. Statements go straight to the driver.
   */
  private async withConnection<T>(fn: (run: Runner) => Promise<T>): Promise<T> {
    const client = (this.orm.em.fork() as unknown as KnexEntityManager).getKnex().client as {
      acquireConnection(): Promise<unknown>;
      releaseConnection(connection: unknown): Promise<void>;
    };
    const connection = await guard(client.acquireConnection());
    try {
      return await guard(fn(runnerFor(this.dialect, connection)));
    } finally {
      await client.releaseConnection(connection);
    }
  }

  async close(): Promise<void> {
    await this.orm.close(true);
  }

  /** Applies pending migrations (idempotent); returns how many ran. */
  async migrate(): Promise<number> {
    return (await this.orm.getMigrator().up()).length;
  }

}

async function guard<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (e) {
    throw asUnavailable(e);
  }
}

function stores(sql: Sql): Stores {
  return {
    tokens: new MikroOrmTokenRepository(sql),
    trades: new MikroOrmTradeLedger(sql),
    positions: new MikroOrmPositionRepository(sql),
    payments: new MikroOrmPaymentStore(sql),
    payouts: new MikroOrmOutboxStore(sql, PAYOUTS),
    quotes: new MikroOrmQuoteStore(sql),
    assetQuotes: new MikroOrmAssetQuoteStore(sql),
    events: new MikroOrmEventLog(sql),
    paymentIds: new MikroOrmPaymentIdentifierStore(sql),
    proofNonces: new MikroOrmProofNonceStore(sql),
    accessGrants: new MikroOrmAccessGrantStore(sql),
    deployments: new MikroOrmOutboxStore(sql, DEPLOYMENTS),
    deliveries: new MikroOrmOutboxStore(sql, DELIVERIES),
    pulls: new MikroOrmTokenPullStore(sql),
  };
}

async function createSchema(options: Options, schema: string): Promise<void> {
  const bootstrap = await MikroORM.init({ ...options, schema: undefined, pool: { min: 0, max: 1 }, extensions: [] } as Options);
  try {
    await bootstrap.em.getConnection().execute(`create schema if not exists "${schema.replace(/"/g, '')}"`);
  } finally {
    await bootstrap.close(true);
  }
}
