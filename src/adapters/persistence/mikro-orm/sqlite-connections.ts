/**
 * SQLite's connections beside the pool's one writer: readers that never wait for it (WAL), and
 * the checkpointer that keeps the write-ahead log's copies out of the commits.
 */
import type { PgClientClass } from './postgres-change-feed.js';
import { finalizePrepared, runnerFor, type Runner } from './sql.js';

export type KnexClient = {
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): Promise<void>;
  /** The driver module: node-sqlite3's (Database) or node-postgres' (Client). */
  driver?: { Database: new (path: string, cb: (e: Error | null) => void) => SqliteDatabase; Client: PgClientClass };
};
export interface SqliteDatabase {
  run(sql: string, cb: (e: Error | null) => void): void;
  close(cb: (e: Error | null) => void): void;
}

/**
 * SQLite's readers: connections of their own to the same file, each statement on the next one in
 * turn. In WAL mode a reader sees the last commit and never waits for the writer, nor the writer
 * for it. They are `query_only`: nothing but a SELECT is ever sent to them.
 */
export class SqliteReaders {
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
export class SqliteCheckpointer {
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
