/**
 * The unit of work on MikroORM: one database transaction per unit, on a connection of MikroORM's
 * pool, with the stores bound to it (they run their statements on the driver; no identity map,
 * nothing shared between units). SQLite is the embedded default (WAL, synchronous=NORMAL, busy
 * timeout, the write lock taken when a transaction begins), with reader connections of its own
 * beside the one writer, so reads never queue behind writes; PostgreSQL for scale (row locks per
 * token). The schema comes from the committed migrations, run at open — never from schema sync.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { MikroORM, type Options } from '@mikro-orm/core';
import type { EntityManager as KnexEntityManager } from '@mikro-orm/knex';
import { Migrator } from '@mikro-orm/migrations';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { SqliteDriver } from '@mikro-orm/sqlite';
import type { ChangeFeed } from '../../../ports/change-feed.js';
import type { Stores, UnitOfWork } from '../../../ports/unit-of-work.js';
import { notingTokens } from '../kit/commit-feed.js';
import { Migration0001Initial } from './migrations/migration-0001-initial.js';
import { Migration0002PaymentSignature } from './migrations/migration-0002-payment-signature.js';
import { Migration0003X402Extensions } from './migrations/migration-0003-x402-extensions.js';
import { Migration0004OnChainTokens } from './migrations/migration-0004-on-chain-tokens.js';
import { Migration0005PaymentAssets } from './migrations/migration-0005-payment-assets.js';
import { Migration0007GraduationPool } from './migrations/migration-0007-graduation-pool.js';
import { Migration0008EventNotifications } from './migrations/migration-0008-event-notifications.js';
import { Migration0009PaymentResourceUrl } from './migrations/migration-0009-payment-resource-url.js';
import { Migration0010TokenTransfers } from './migrations/migration-0010-token-transfers.js';
import { Migration0011PoolSwaps } from './migrations/migration-0011-pool-swaps.js';
import { Migration0012TokenLinksAndReferrer } from './migrations/migration-0012-token-links-and-referrer.js';
import { Migration0013Earnings } from './migrations/migration-0013-earnings.js';
import { Migration0014CustodyIntentsAndSharedSettings } from './migrations/migration-0014-custody-intents-and-shared-settings.js';
import { MikroOrmCustodyIntentStore } from './mikro-orm-custody-intent-store.js';
import { MikroOrmSharedSettingsStore } from './mikro-orm-shared-settings-store.js';
import { PostgresSignerLocks } from './postgres-signer-locks.js';
import { Migration0015DeliveryBatches } from './migrations/migration-0015-delivery-batches.js';
import { MikroOrmEarningsStore } from './mikro-orm-earnings-store.js';
import { MikroOrmAccessGrantStore } from './mikro-orm-access-grant-store.js';
import { MikroOrmEventLog } from './mikro-orm-event-log.js';
import { MikroOrmPaymentIdentifierStore } from './mikro-orm-payment-identifier-store.js';
import { MikroOrmPaymentStore } from './mikro-orm-payment-store.js';
import { MikroOrmOutboxStore } from './mikro-orm-outbox-store.js';
import { MikroOrmCustodyTransactionStore } from './mikro-orm-custody-transaction-store.js';
import { MikroOrmTokenPullStore } from './mikro-orm-token-pull-store.js';
import { DEPLOYMENTS, GRADUATIONS, PAYOUTS } from './outbox-tables.js';
import { MikroOrmDeliveryBatchStore } from './mikro-orm-delivery-batch-store.js';
import { MikroOrmDeliveryStore } from './mikro-orm-delivery-store.js';
import { MikroOrmPositionRepository } from './mikro-orm-position-repository.js';
import { MikroOrmProofNonceStore } from './mikro-orm-proof-nonce-store.js';
import { MikroOrmAssetQuoteStore } from './mikro-orm-asset-quote-store.js';
import { MikroOrmQuoteStore } from './mikro-orm-quote-store.js';
import { MikroOrmTokenRepository } from './mikro-orm-token-repository.js';
import { MikroOrmTradeLedger } from './mikro-orm-trade-ledger.js';
import { MikroOrmTransferStore } from './mikro-orm-transfer-store.js';
import { finalizePrepared, runnerFor, Sql, type Dialect, type Runner } from './sql.js';
import { asUnavailable } from './unavailable.js';
import { PostgresChangeFeed, type PgClientClass } from './postgres-change-feed.js';
import { SqliteChangeFeed } from './sqlite-change-feed.js';

export const MIGRATIONS = [
  { name: 'Migration0001Initial', class: Migration0001Initial },
  { name: 'Migration0002PaymentSignature', class: Migration0002PaymentSignature },
  { name: 'Migration0003X402Extensions', class: Migration0003X402Extensions },
  { name: 'Migration0004OnChainTokens', class: Migration0004OnChainTokens },
  { name: 'Migration0005PaymentAssets', class: Migration0005PaymentAssets },
  { name: 'Migration0007GraduationPool', class: Migration0007GraduationPool },
  { name: 'Migration0008EventNotifications', class: Migration0008EventNotifications },
  { name: 'Migration0009PaymentResourceUrl', class: Migration0009PaymentResourceUrl },
  { name: 'Migration0010TokenTransfers', class: Migration0010TokenTransfers },
  { name: 'Migration0011PoolSwaps', class: Migration0011PoolSwaps },
  { name: 'Migration0012TokenLinksAndReferrer', class: Migration0012TokenLinksAndReferrer },
  { name: 'Migration0013Earnings', class: Migration0013Earnings },
  { name: 'Migration0014CustodyIntentsAndSharedSettings', class: Migration0014CustodyIntentsAndSharedSettings },
  { name: 'Migration0015DeliveryBatches', class: Migration0015DeliveryBatches },
];

export interface OpenOptions {
  /** `sqlite:<path>`, `sqlite::memory:`, or `postgres://…[?schema=name]`. */
  url: string;
  /** PostgreSQL connections per process. */
  poolSize?: number;
  /** SQLite file: read-only connections beside the writer (WAL lets them read while it writes). */
  sqliteReaders?: number;
  /** SQLite file: write-ahead log checkpoints off the writer, after this many write units (or a second). */
  checkpointEvery?: number;
  /** Follow the events every process commits (`changeFeed`); default true. */
  changeFeed?: boolean;
  /** PostgreSQL: how the signer locks name this process to an operator (default "pid N on host"). */
  processName?: string;
}

type KnexClient = {
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): Promise<void>;
  /** The driver module: node-sqlite3's (Database) or node-postgres' (Client). */
  driver?: { Database: new (path: string, cb: (e: Error | null) => void) => SqliteDatabase; Client: PgClientClass };
};
interface SqliteDatabase {
  run(sql: string, cb: (e: Error | null) => void): void;
  close(cb: (e: Error | null) => void): void;
}

const SELECT = /^\s*select\b/i;

/**
 * SQLite's readers: connections of their own to the same file, each statement on the next one in
 * turn. In WAL mode a reader sees the last commit and never waits for the writer, nor the writer
 * for it. They are `query_only`: nothing but a SELECT is ever sent to them.
 */
class SqliteReaders {
  private next = 0;
  private constructor(
    private readonly connections: SqliteDatabase[],
    private readonly runners: Runner[],
  ) {}

  static async open(client: KnexClient, path: string, count: number): Promise<SqliteReaders | null> {
    if (!client.driver?.Database || count < 1 || path === ':memory:') return null; // a memory database is one connection's own
    const connections: SqliteDatabase[] = [];
    for (let i = 0; i < count; i++) connections.push(await openSqlite(client, path, ['pragma query_only = 1']));
    return new SqliteReaders(connections, connections.map((c) => runnerFor('sqlite', c)));
  }

  run: Runner = (sql, params) => this.runners[this.next++ % this.runners.length]!(sql, params);

  async close(): Promise<void> {
    await Promise.all(this.connections.map(finalizePrepared));
    await Promise.all(this.connections.map((c) => new Promise<void>((resolve) => c.close(() => resolve()))));
  }
}

/** A connection of its own to a SQLite file, with the busy timeout every connection has. */
async function openSqlite(client: KnexClient, path: string, pragmas: readonly string[]): Promise<SqliteDatabase> {
  const Database = client.driver!.Database;
  const db = await new Promise<SqliteDatabase>((resolve, reject) => {
    const d = new Database(path, (e) => (e ? reject(e) : resolve(d)));
  });
  for (const pragma of ['pragma busy_timeout = 5000', ...pragmas]) {
    await new Promise<void>((resolve, reject) => db.run(pragma, (e) => (e ? reject(e) : resolve())));
  }
  return db;
}

/**
 * SQLite's checkpoints, moved out of the commits. By default the connection whose commit pushes
 * the write-ahead log past 1,000 pages copies the log into the database file and syncs both
 * inside that commit — a trade dirties ≈ 16 pages, so every ≈ 60th write unit stalled on the
 * copy and two fsyncs. Here the writer's automatic checkpoints are off and this connection
 * checkpoints after `every` write units (or within a second of the last unchecked one), one
 * round at a time, in two passes: a PASSIVE pass beside the writer (it blocks neither the writer
 * nor a reader) copies what is in the log; a second pass in the writer's turn copies the few
 * frames written meanwhile, so the log is whole in the file and the next write starts it over
 * (a log appended to while every checkpoint runs would never restart, and grow without end). A
 * second process on the file runs its own; whoever misses the checkpoint lock skips that round.
 */
class SqliteCheckpointer {
  private writes = 0;
  private running: Promise<void> | null = null;
  private readonly timer: NodeJS.Timeout;

  private constructor(
    private readonly db: SqliteDatabase,
    private readonly every: number,
    /** Waits for the writer's turn and holds it until the returned release is called. */
    private readonly writerTurn: () => Promise<() => Promise<void>>,
  ) {
    this.timer = setInterval(() => this.writes > 0 && this.checkpoint(), 1_000);
    this.timer.unref();
  }

  static async open(client: KnexClient, path: string, every: number, writerTurn: () => Promise<() => Promise<void>>): Promise<SqliteCheckpointer | null> {
    if (!client.driver?.Database || path === ':memory:') return null;
    return new SqliteCheckpointer(await openSqlite(client, path, []), every, writerTurn);
  }

  /** A write unit committed. */
  wrote(): void {
    if (++this.writes >= this.every) this.checkpoint();
  }

  private checkpoint(): void {
    if (this.running) return;
    this.writes = 0;
    const pass = () => new Promise<void>((resolve) => this.db.run('pragma wal_checkpoint(PASSIVE)', () => resolve()));
    this.running = (async () => {
      await pass();
      const release = await this.writerTurn();
      try {
        await pass();
      } finally {
        await release();
      }
    })()
      .catch(() => undefined) // a checkpoint that fails is retried next round; the log keeps every write meanwhile
      .finally(() => (this.running = null));
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
    await new Promise<void>((resolve) => this.db.close(() => resolve()));
  }
}

function config(url: string, poolSize: number): { options: Options; dialect: Dialect; schema: string | undefined; clientUrl?: string } {
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
      driver: SqliteDriver,
      dbName: path,
      pool: {
        min: 1,
        max: 1,
        afterCreate: (conn: { run: (sql: string, cb: (e: Error | null) => void) => void }, done: (e: Error | null, c: unknown) => void) => {
          // wal_autocheckpoint = 0: checkpoints run on a connection of their own (SqliteCheckpointer).
          const pragmas = ['pragma journal_mode = WAL', 'pragma synchronous = NORMAL', 'pragma busy_timeout = 5000', 'pragma foreign_keys = ON', 'pragma wal_autocheckpoint = 0'];
          const next = (i: number) => (i === pragmas.length ? done(null, conn) : conn.run(pragmas[i]!, (e) => (e ? done(e, conn) : next(i + 1))));
          next(0);
        },
      },
    } as Options,
  };
}

export class MikroOrmUnitOfWork implements UnitOfWork {
  /** Pool connections this unit of work has run statements on (their prepared statements go at close). */
  private readonly used = new Set<unknown>();

  private constructor(
    private readonly orm: MikroORM,
    readonly dialect: Dialect,
    private readonly client: KnexClient,
    private readonly readers: SqliteReaders | null,
    /** SQLite: the pool's one connection, taken at open and handed from unit to unit in turn. */
    private readonly writer: { connection: unknown; tail: Promise<void> } | null,
  ) {}

  /** SQLite file: runs the write-ahead log's checkpoints (set once, at open). */
  private checkpointer: SqliteCheckpointer | null = null;
  /** The tokens whose events commit, in this process or any other (set once, at open). */
  private changes: PostgresChangeFeed | SqliteChangeFeed | null = null;
  private locks: PostgresSignerLocks | null = null;

  /**
   * PostgreSQL: one signer per key among the processes on this database (advisory locks on a
   * connection of their own, made at the first use). SQLite: null — one process per file.
   */
  get signerLocks(): PostgresSignerLocks | null {
    return this.locks;
  }

  /**
   * Which tokens' events commit — this process's as each unit commits, other processes' as
   * PostgreSQL announces them (LISTEN/NOTIFY) or as the SQLite file's event log shows them (read
   * every 50 ms). None for `sqlite::memory:`, or when opened with `changeFeed: false`.
   */
  get changeFeed(): ChangeFeed | null {
    return this.changes?.feed ?? null;
  }

  static async open(options: OpenOptions): Promise<MikroOrmUnitOfWork> {
    const { options: ormOptions, dialect, schema, clientUrl } = config(options.url, options.poolSize ?? 10);
    if (dialect === 'postgresql' && schema) await createSchema(ormOptions, schema);
    const orm = await MikroORM.init(ormOptions);
    await orm.getMigrator().up();
    // The pool's client, taken once: a unit of work needs a connection, not an EntityManager.
    const client = (orm.em as unknown as KnexEntityManager).getKnex().client as KnexClient;
    const readers = dialect === 'sqlite' ? await SqliteReaders.open(client, ormOptions.dbName!, options.sqliteReaders ?? 2) : null;
    // SQLite has one writer connection (a pool of 1): units queue for it here, not in the pool.
    const writer = dialect === 'sqlite' ? { connection: await guard(client.acquireConnection()), tail: Promise.resolve() } : null;
    const uow = new MikroOrmUnitOfWork(orm, dialect, client, readers, writer);
    if (writer) {
      uow.checkpointer = await SqliteCheckpointer.open(client, ormOptions.dbName!, options.checkpointEvery ?? 100, async () => (await uow.acquire()).release);
    }
    if (dialect === 'postgresql' && client.driver?.Client) {
      uow.locks = new PostgresSignerLocks(client.driver.Client, clientUrl!, schema ?? null, options.processName);
    }
    if (options.changeFeed !== false) {
      if (dialect === 'postgresql' && client.driver?.Client) uow.changes = new PostgresChangeFeed(client.driver.Client, clientUrl!, schema ?? null);
      if (readers) uow.changes = new SqliteChangeFeed(readers.run);
      await uow.changes?.start();
    }
    return uow;
  }

  async transaction<T>(work: (stores: Stores) => Promise<T>): Promise<T> {
    return this.withConnection(async (run) => {
      // SQLite: BEGIN IMMEDIATE takes the write lock now, so two writers never both read and
      // then collide (a second process waits up to the busy timeout). PostgreSQL locks rows as
      // the stores touch them (SELECT … FOR UPDATE on the token).
      await run(this.dialect === 'sqlite' ? 'begin immediate' : 'begin', []);
      const touched = new Set<string>();
      try {
        const result = await work(stores(new Sql(run, this.dialect), touched));
        await run('commit', []);
        this.checkpointer?.wrote();
        this.changes?.feed.committed(touched);
        return result;
      } catch (e) {
        await run('rollback', []).catch(() => undefined);
        throw e;
      }
    });
  }

  async run<T>(work: (stores: Stores) => Promise<T>): Promise<T> {
    const readers = this.readers;
    if (!readers) {
      const touched = new Set<string>();
      try {
        return await this.withConnection((run) => work(stores(new Sql(run, this.dialect), touched)));
      } finally {
        this.changes?.feed.committed(touched); // no transaction: each write stood as soon as it was made
      }
    }
    // SQLite: no transaction here, so every statement commits alone and each SELECT may go to a
    // reader (it sees every commit before it, this unit's own writes included). The writer is
    // taken only if the unit writes (a claim, a compare-and-set), and held to its end.
    type Writer = { run: Runner; release: () => Promise<void> };
    let taking = null as Promise<Writer> | null;
    const takeWriter = () =>
      (taking ??= this.acquire().then(({ connection, release }) => ({ run: runnerFor('sqlite', this.use(connection)), release })));
    const run: Runner = async (sql, params) => (SELECT.test(sql) ? readers.run(sql, params) : (await takeWriter()).run(sql, params));
    const touched = new Set<string>();
    try {
      return await guard(work(stores(new Sql(run, this.dialect), touched)));
    } finally {
      const held = taking as Promise<Writer> | null; // set inside the runner, if at all
      if (held) await (await held).release();
      this.changes?.feed.committed(touched);
    }
  }

  /** One connection from MikroORM's pool for the duration of `fn`; statements go straight to the driver. */
  private async withConnection<T>(fn: (run: Runner) => Promise<T>): Promise<T> {
    const { connection, release } = await this.acquire();
    try {
      return await guard(fn(runnerFor(this.dialect, this.use(connection))));
    } finally {
      await release();
    }
  }

  private async acquire(): Promise<{ connection: unknown; release: () => Promise<void> }> {
    const writer = this.writer;
    if (!writer) {
      const connection = await guard(this.client.acquireConnection());
      return { connection, release: () => this.client.releaseConnection(connection) };
    }
    let done!: () => void;
    const before = writer.tail;
    writer.tail = before.then(() => new Promise<void>((resolve) => (done = resolve)));
    await before;
    return { connection: writer.connection, release: async () => done() };
  }

  private use(connection: unknown): unknown {
    if (this.dialect === 'sqlite') this.used.add(connection);
    return connection;
  }

  async close(): Promise<void> {
    await this.locks?.close();
    await this.changes?.close();
    await this.readers?.close();
    await this.checkpointer?.close();
    if (this.writer) {
      await this.writer.tail;
      await finalizePrepared(this.writer.connection);
      await this.client.releaseConnection(this.writer.connection);
    }
    await Promise.all([...this.used].map(finalizePrepared));
    await this.orm.close(true);
  }

  /** Applies pending migrations (idempotent); returns how many ran. */
  async migrate(): Promise<number> {
    if (!this.writer) return (await this.orm.getMigrator().up()).length;
    // SQLite: the migrator needs the pool's one connection; it is lent back for the while.
    const { release } = await this.acquire();
    try {
      await this.client.releaseConnection(this.writer.connection);
      try {
        return (await this.orm.getMigrator().up()).length;
      } finally {
        this.writer.connection = await guard(this.client.acquireConnection());
      }
    } finally {
      await release();
    }
  }

}

async function guard<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (e) {
    throw asUnavailable(e);
  }
}

/** The stores on one connection; `touched` collects the tokens whose events they append. */
function stores(sql: Sql, touched: Set<string>): Stores {
  return {
    tokens: new MikroOrmTokenRepository(sql),
    trades: new MikroOrmTradeLedger(sql),
    positions: new MikroOrmPositionRepository(sql),
    payments: new MikroOrmPaymentStore(sql),
    payouts: new MikroOrmOutboxStore(sql, PAYOUTS),
    quotes: new MikroOrmQuoteStore(sql),
    assetQuotes: new MikroOrmAssetQuoteStore(sql),
    events: notingTokens(new MikroOrmEventLog(sql), touched),
    paymentIds: new MikroOrmPaymentIdentifierStore(sql),
    proofNonces: new MikroOrmProofNonceStore(sql),
    accessGrants: new MikroOrmAccessGrantStore(sql),
    deployments: new MikroOrmOutboxStore(sql, DEPLOYMENTS),
    deliveries: new MikroOrmDeliveryStore(sql),
    deliveryBatches: new MikroOrmDeliveryBatchStore(sql),
    graduations: new MikroOrmOutboxStore(sql, GRADUATIONS),
    pulls: new MikroOrmTokenPullStore(sql),
    swaps: new MikroOrmCustodyTransactionStore(sql, 'pool_swaps'),
    transfers: new MikroOrmTransferStore(sql),
    earnings: new MikroOrmEarningsStore(sql),
    intents: new MikroOrmCustodyIntentStore(sql),
    sharedSettings: new MikroOrmSharedSettingsStore(sql),
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
