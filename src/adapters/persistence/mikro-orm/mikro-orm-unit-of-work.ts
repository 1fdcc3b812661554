/**
 * The unit of work on MikroORM: one database transaction per unit, on a connection of MikroORM's
 * pool, with the stores bound to it (they run their statements on the driver; no identity map,
 * nothing shared between units). SQLite is the embedded default (WAL, synchronous=NORMAL, busy
 * timeout, the write lock taken when a transaction begins), with reader connections of its own
 * beside the one writer, so reads never queue behind writes; PostgreSQL for scale (row locks per
 * token). The schema comes from the committed migrations, run at open — never from schema sync.
 */
import { MikroORM } from '@mikro-orm/core';
import pg from 'pg';
import type { ChangeFeed } from '../../../ports/change-feed.js';
import type { Stores, UnitOfWork } from '../../../ports/unit-of-work.js';
import { createSchema, migrateUp, ormOptionsFor, SQLITE_PRAGMAS } from './orm-options.js';
import { PostgresChangeFeed } from './postgres-change-feed.js';
import { PostgresSignerLocks } from './postgres-signer-locks.js';
import { finalizePrepared, runnerFor, Sql, type Dialect, type Runner, type SqliteConnection } from './sql.js';
import { SqliteCheckpointer, SqliteReaders } from './sqlite-connections.js';
import { SqliteChangeFeed } from './sqlite-change-feed.js';
import { stores } from './stores.js';
import { asUnavailable } from './unavailable.js';

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
  /**
   * Told of every statement the units of work send (begin and commit included), before it runs:
   * what the statement-budget test counts (decision 0051). Not the change feed's tail reads nor
   * the checkpointer's, which run on connections of their own.
   */
  onStatement?: (sql: string) => void;
}

const SELECT = /^\s*select\b/i;

/** node-postgres' pool under MikroORM's connection (its native client), and a connection of it. */
interface PgPool {
  connect(): Promise<PgPooled>;
}
interface PgPooled {
  /** Back to the pool; a connection that broke meanwhile is dropped by the pool, not handed out again. */
  release(): void;
}

export class MikroOrmUnitOfWork implements UnitOfWork {
  /** Pool connections this unit of work has run statements on (their prepared statements go at close). */
  private readonly used = new Set<unknown>();

  private constructor(
    private readonly orm: MikroORM,
    readonly dialect: Dialect,
    /** PostgreSQL: the pool units take their connections from (SQLite: null, the one writer). */
    private readonly pool: PgPool | null,
    private readonly readers: SqliteReaders | null,
    /** SQLite: MikroORM's one connection, handed from unit to unit in turn. */
    private readonly writer: { connection: SqliteConnection; tail: Promise<void> } | null,
    private readonly onStatement: ((sql: string) => void) | undefined,
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
    const { options: ormOptions, dialect, schema, clientUrl } = ormOptionsFor(options.url, options.poolSize ?? 10);
    if (dialect === 'postgresql' && schema) await createSchema(ormOptions, schema);
    const orm = await MikroORM.init(ormOptions);
    // The driver's own client, taken once: a unit of work needs a connection, not an EntityManager.
    // SQLite: better-sqlite3's database, the one writer; PostgreSQL: node-postgres' pool.
    const native = await (orm.em.getConnection() as unknown as { getNativeClient(): Promise<unknown> }).getNativeClient();
    const writer = dialect === 'sqlite' ? { connection: native as SqliteConnection, tail: Promise.resolve() } : null;
    if (writer) for (const pragma of SQLITE_PRAGMAS) writer.connection.exec(pragma);
    await migrateUp(orm);
    const readers = writer ? SqliteReaders.open(ormOptions.dbName!, options.sqliteReaders ?? 2) : null;
    const uow = new MikroOrmUnitOfWork(orm, dialect, writer ? null : (native as PgPool), readers, writer, options.onStatement);
    if (writer) {
      uow.checkpointer = await SqliteCheckpointer.open(ormOptions.dbName!, options.checkpointEvery ?? 100, async () => (await uow.acquire()).release);
    }
    if (dialect === 'postgresql') uow.locks = new PostgresSignerLocks(pg.Client, clientUrl!, schema ?? null, options.processName);
    if (options.changeFeed !== false) {
      if (dialect === 'postgresql') uow.changes = new PostgresChangeFeed(pg.Client, clientUrl!, schema ?? null);
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
        // PostgreSQL: the unit's writes after its last read go to the server together (decision 0055).
        const sql = new Sql(run, this.dialect, this.dialect === 'postgresql');
        const result = await work(stores(sql, touched));
        await sql.flush();
        await run('commit', []);
        this.checkpointer?.wrote();
        this.changes?.feed.committed(touched);
        if (this.checkpointer?.checkpointing) await new Promise((resolve) => setImmediate(resolve));
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
    const run: Runner = this.observed(async (sql, params) => (SELECT.test(sql) ? readers.run(sql, params) : (await takeWriter()).run(sql, params)));
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
      return await guard(fn(this.observed(runnerFor(this.dialect, this.use(connection)))));
    } finally {
      await release();
    }
  }

  private async acquire(): Promise<{ connection: unknown; release: () => Promise<void> }> {
    const writer = this.writer;
    if (!writer) {
      const connection = await guard(this.pool!.connect());
      return { connection, release: async () => connection.release() };
    }
    let done!: () => void;
    const before = writer.tail;
    writer.tail = before.then(() => new Promise<void>((resolve) => (done = resolve)));
    await before;
    return { connection: writer.connection, release: async () => done() };
  }

  /** The runner, telling `onStatement` of each statement when one is set. */
  private observed(run: Runner): Runner {
    const tell = this.onStatement;
    return tell ? (sql, params) => (tell(sql), run(sql, params)) : run;
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
    }
    await Promise.all([...this.used].map(finalizePrepared));
    await this.orm.close(true);
  }

  /** Applies pending migrations (idempotent); returns how many ran. SQLite: in the writer's turn (the migrator runs on its connection). */
  async migrate(): Promise<number> {
    if (!this.writer) return migrateUp(this.orm);
    const { release } = await this.acquire();
    try {
      return await migrateUp(this.orm);
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

