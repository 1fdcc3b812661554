/**
 * SQLite's connections beside the pool's one writer: readers that never wait for it (WAL), and
 * the checkpointer that keeps the write-ahead log's copies out of the commits. The driver is
 * better-sqlite3 (synchronous, decision 0051): the readers run on this thread like the writer,
 * the checkpointer on a worker thread of its own, so a checkpoint's copy and fsyncs never hold
 * this thread.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { finalizePrepared, runnerFor, type Runner, type SqliteConnection } from './sql.js';

/** better-sqlite3's Database class (the driver under @mikro-orm/sqlite; the package ships no types). */
type SqliteOpen = new (path: string, options?: { timeout?: number; readonly?: boolean }) => SqliteConnection;
const Database = createRequire(import.meta.url)('better-sqlite3') as SqliteOpen;

/** A connection of its own to a SQLite file; like the writer's, its busy waits are sql.ts's (busy_timeout 0). */
function openSqlite(path: string, pragmas: readonly string[]): SqliteConnection {
  const db = new Database(path, { timeout: 0 });
  for (const pragma of pragmas) db.exec(pragma);
  return db;
}

/**
 * SQLite's readers: connections of their own to the same file, each statement on the next one in
 * turn. In WAL mode a reader sees the last commit and never waits for the writer, nor the writer
 * for it. They are `query_only`: nothing but a SELECT is ever sent to them.
 */
export class SqliteReaders {
  private next = 0;
  private constructor(
    private readonly connections: SqliteConnection[],
    private readonly runners: Runner[],
  ) {}

  static open(path: string, count: number): SqliteReaders | null {
    if (count < 1 || path === ':memory:') return null; // a memory database is one connection's own
    const connections: SqliteConnection[] = [];
    for (let i = 0; i < count; i++) connections.push(openSqlite(path, ['pragma query_only = 1']));
    return new SqliteReaders(connections, connections.map((c) => runnerFor('sqlite', c)));
  }

  run: Runner = (sql, params) => this.runners[this.next++ % this.runners.length]!(sql, params);

  async close(): Promise<void> {
    await Promise.all(this.connections.map(finalizePrepared));
    for (const c of this.connections) c.close();
  }
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
 * The connection lives on a worker thread (CHECKPOINT_THREAD): the driver is synchronous, and a
 * pass on this thread would hold every request for its copy and fsyncs.
 */
export class SqliteCheckpointer {
  private writes = 0;
  private running: Promise<void> | null = null;
  private readonly timer: NodeJS.Timeout;

  private constructor(
    private readonly thread: CheckpointThread,
    private readonly every: number,
    /** Waits for the writer's turn and holds it until the returned release is called. */
    private readonly writerTurn: () => Promise<() => Promise<void>>,
  ) {
    this.timer = setInterval(() => this.writes > 0 && this.checkpoint(), 1_000);
    this.timer.unref();
  }

  static async open(path: string, every: number, writerTurn: () => Promise<() => Promise<void>>): Promise<SqliteCheckpointer | null> {
    if (path === ':memory:') return null;
    return new SqliteCheckpointer(await CheckpointThread.start(path), every, writerTurn);
  }

  /** A write unit committed. */
  wrote(): void {
    if (++this.writes >= this.every) this.checkpoint();
  }

  /**
   * Whether a round is under way. The driver is synchronous, so units of work one after another
   * never leave this thread's microtasks: while a round runs, each unit gives the event loop a
   * turn (the round's answers from its thread arrive there), or the round would wait for a pause
   * that a busy loop of writes never makes, and the log would grow meanwhile.
   */
  get checkpointing(): boolean {
    return this.running !== null;
  }

  private checkpoint(): void {
    if (this.running) return;
    this.writes = 0;
    const pass = () => this.thread.pass();
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
    await this.thread.close();
  }
}

/**
 * The checkpointer's connection, on a worker thread: each message runs one PASSIVE checkpoint
 * there and answers when it is done (a pass that fails answers too: it is retried next round).
 */
const CHECKPOINT_THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { timeout: 5000 });
parentPort.postMessage('open');
parentPort.on('message', (m) => {
  if (m === 'close') { db.close(); parentPort.postMessage('closed'); return; }
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch {}
  parentPort.postMessage('done');
});`;

class CheckpointThread {
  private waiting: (() => void) | null = null;
  private dead = false;

  private constructor(private readonly worker: Worker) {
    worker.on('message', () => this.answered());
    // A dead thread answers what it was asked, and every later pass at once (the log then waits for a restart).
    worker.on('error', () => this.died());
    worker.on('exit', () => this.died());
    worker.unref();
  }

  static async start(path: string): Promise<CheckpointThread> {
    const worker = new Worker(CHECKPOINT_THREAD, { eval: true, workerData: { path, driver: createRequire(import.meta.url).resolve('better-sqlite3') } });
    await new Promise<void>((resolve, reject) => {
      worker.once('message', () => resolve());
      worker.once('error', reject);
    });
    return new CheckpointThread(worker);
  }

  /** One PASSIVE checkpoint on the thread (one at a time: the checkpointer runs one round at a time). */
  pass(): Promise<void> {
    return this.ask('pass');
  }

  async close(): Promise<void> {
    await this.ask('close');
    await this.worker.terminate();
  }

  /** Asks the thread; the process is held open (ref) only while an answer is awaited. */
  private ask(message: string): Promise<void> {
    if (this.dead) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.waiting = resolve;
      this.worker.ref();
      this.worker.postMessage(message);
    });
  }

  private answered(): void {
    const waiting = this.waiting;
    this.waiting = null;
    this.worker.unref();
    waiting?.();
  }

  private died(): void {
    this.dead = true;
    this.answered();
  }
}
