/**
 * Statements on one MikroORM connection, inside the unit of work's transaction when there is
 * one. Every statement returns rows (writes use RETURNING), so a compare-and-set knows whether
 * it won on both drivers.
 */

export type Dialect = 'postgresql' | 'sqlite';
export type Row = Record<string, unknown>;

/** Runs one statement on a connection and returns its rows. */
export type Runner = (sql: string, params: readonly unknown[]) => Promise<Row[]>;

interface SqliteStatement {
  /** True for a statement that returns rows (a SELECT, a write with RETURNING). */
  readonly reader: boolean;
  all(...params: unknown[]): Row[];
  run(...params: unknown[]): unknown;
}
/** A better-sqlite3 connection: every call runs on this thread, to completion. */
export interface SqliteConnection {
  prepare(sql: string): SqliteStatement;
  exec(sql: string): unknown;
  close(): unknown;
}

/** Prepared statements kept per SQLite connection, by SQL text (the stores' SQL is a fixed set). */
const prepared = new WeakMap<object, Map<string, SqliteStatement>>();
const MAX_PREPARED = 256;

/**
 * better-sqlite3 runs a statement synchronously on the calling thread: no trip to libuv's pool
 * and back per statement (node-sqlite3's, ≈ 30 µs of its own work plus the hop), and a
 * statement prepared once per connection is kept. The promise keeps the stores' one interface
 * for both databases.
 */
function preparedRunner(db: SqliteConnection): Runner {
  let cache = prepared.get(db);
  if (!cache) prepared.set(db, (cache = new Map()));
  const statements = cache;
  const once = (sql: string, values: unknown[]): Row[] => {
    let statement = statements.get(sql);
    if (!statement) {
      if (statements.size >= MAX_PREPARED) statements.delete(statements.keys().next().value!);
      statement = db.prepare(sql);
      statements.set(sql, statement);
    }
    if (statement.reader) return statement.all(...values);
    statement.run(...values);
    return [];
  };
  return (sql, params) => {
    const values = params.map(sqliteValue);
    try {
      return Promise.resolve(once(sql, values));
    } catch (e) {
      return isBusy(e) ? retryBusy(() => once(sql, values)) : Promise.reject(e);
    }
  };
}

/** How long a statement waits for another connection's lock before SQLITE_BUSY stands (what busy_timeout was). */
export const SQLITE_BUSY_MS = 5_000;

const isBusy = (e: unknown) => /^SQLITE_BUSY/.test((e as { code?: string } | null)?.code ?? '');

/**
 * SQLite's busy wait, off the thread: a statement that met another connection's lock did
 * nothing, and is tried again after a pause, until SQLITE_BUSY_MS. The connections' own
 * busy_timeout is 0 — SQLite's busy handler would sleep on this thread, holding every other
 * request (and the connection that holds the lock, when it is this process's own) meanwhile.
 */
async function retryBusy(run: () => Row[]): Promise<Row[]> {
  const deadline = Date.now() + SQLITE_BUSY_MS;
  for (let delay = 1; ; delay = Math.min(delay * 2, 50)) {
    await new Promise((resolve) => setTimeout(resolve, delay));
    try {
      return run();
    } catch (e) {
      if (!isBusy(e) || Date.now() >= deadline) throw e;
    }
  }
}

/** A value as SQLite stores it: better-sqlite3 binds no booleans, Dates nor undefined (node-sqlite3 converted them). */
function sqliteValue(v: unknown): unknown {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (v === undefined) return null;
  if (v instanceof Date) return v.getTime();
  return v;
}

/** Forgets the statements kept for a connection (better-sqlite3 finalizes them itself when it closes). */
export function finalizePrepared(connection: unknown): Promise<void> {
  prepared.delete(connection as object);
  return Promise.resolve();
}
interface PgConnection {
  query(query: { name?: string; text: string; values: readonly unknown[] }): Promise<{ rows: Row[] }>;
}

/** PostgreSQL statement names, by SQL text, for the whole process (the stores' SQL is a fixed set). */
const pgStatements = new Map<string, { name: string; text: string }>();
const MAX_PG_STATEMENTS = 1_000;

/**
 * A named statement: node-postgres parses it once per connection and then only binds and
 * executes it, so the server plans it once per connection instead of once per call — about half
 * of a statement's time on the trade path. Past the cap (SQL built from many filters) a
 * statement goes unnamed, parsed each time, so the server never holds an unbounded set.
 */
function pgStatement(sql: string): { name?: string; text: string } {
  const known = pgStatements.get(sql);
  if (known) return known;
  let n = 0;
  const text = sql.replace(/\?/g, () => `$${++n}`);
  if (pgStatements.size >= MAX_PG_STATEMENTS) return { text };
  const statement = { name: `lp_${pgStatements.size + 1}`, text };
  pgStatements.set(sql, statement);
  return statement;
}

/**
 * Statements go straight to the driver connection that MikroORM's pool (and, inside a unit of
 * work, its transaction) holds: the hot path pays for the statement, not for a query builder.
 */
export function runnerFor(dialect: Dialect, connection: unknown): Runner {
  if (dialect === 'sqlite') return preparedRunner(connection as SqliteConnection);
  const client = connection as PgConnection;
  return (sql, params) => {
    // One statement at a time per connection, in call order: node-postgres queues overlapping
    // ones itself but warns that pg@9 will not (a DeprecationWarning) — a view's Promise.all does.
    const run = (pgTails.get(client) ?? Promise.resolve()).then(() => client.query({ ...pgStatement(sql), values: params }));
    pgTails.set(client, run.catch(() => undefined));
    return run.then((r) => r.rows);
  };
}

/** The last statement sent on each PostgreSQL connection, which the next one waits for. */
const pgTails = new WeakMap<PgConnection, Promise<unknown>>();

/** How a held write is sent and checked (`Sql.write`). */
export interface WriteOptions {
  /**
   * The row the write changes, beyond rows of its own making (`table:id` of a row it updates or
   * upserts into): two writes with one key are never sent in one statement, so no row is changed
   * twice in one statement (PostgreSQL would keep one of the changes, unpredictably).
   */
  key?: string;
  /**
   * PostgreSQL: common table expressions the write's statement reads (`name as (…)`, no
   * parameters), hoisted into the statement it is sent in — a write inside a WITH cannot have
   * one of its own.
   */
  with?: string;
  /** Told how many rows the write returned; throws to fail the unit of work (a lost compare-and-set). */
  check?: (rows: number) => void;
}

/** A write's check that it changed exactly one row, failing the unit with `fail()` otherwise (a lost compare-and-set, a missing row). */
export const exactlyOne =
  (fail: () => Error) =>
  (rows: number): void => {
    if (rows !== 1) throw fail();
  };

/** Bind parameters per statement of held writes: PostgreSQL takes at most 65,535. */
const MAX_PARAMS = 30_000;

interface HeldWrite {
  sql: string;
  params: readonly unknown[];
  options: WriteOptions;
}

export class Sql {
  /** PostgreSQL, inside a transaction: writes held until the unit's next statement or its commit. */
  private held: HeldWrite[] = [];
  /** Held writes on their way to the server: the unit's next statements wait for them. */
  private sending: Promise<void> | null = null;

  constructor(
    private readonly run: Runner,
    readonly dialect: Dialect,
    /** Hold writes and send them together (decision 0055): PostgreSQL transactions only. */
    private readonly holding = false,
  ) {}

  all(sql: string, params: readonly unknown[] = []): Promise<Row[]> {
    if (this.held.length === 0 && this.sending === null) return this.run(sql, params);
    return this.flush().then(() => this.run(sql, params));
  }

  /**
   * A write whose caller needs nothing back but that it took effect (`check`). Outside a
   * PostgreSQL transaction it runs now. Inside one it is held, and the writes held together go
   * as one statement — each a member of one WITH — before the unit's next statement or its
   * commit (decision 0055): a trade's seven writes are one round trip to the server instead of
   * seven. A held write's failure (a constraint, a `check`) fails the unit there, and the unit
   * rolls back as it would have had the write failed at once; nothing outside the transaction
   * sees a write before its commit either way.
   */
  async write(sql: string, params: readonly unknown[], options: WriteOptions = {}): Promise<void> {
    if (!this.holding) {
      const rows = await this.all(options.with ? `with ${options.with} ${sql}` : sql, params);
      options.check?.(rows.length);
      return;
    }
    const write = { sql, params, options };
    if (options.key !== undefined && this.held.some((w) => w.options.key === options.key)) {
      // Held after the flush has taken the others, before awaiting it: a write made meanwhile
      // (a Promise.all of writes) finds this one held, never an empty batch.
      const flushed = this.flush();
      this.held.push(write);
      return flushed;
    }
    this.held.push(write);
  }

  /**
   * Sends the held writes, if any: one statement whatever their number (but for the server's
   * limit of bind parameters: a statement more per MAX_PARAMS); runs their checks.
   */
  flush(): Promise<void> {
    const writes = this.held;
    if (writes.length === 0) return this.sending ?? Promise.resolve();
    this.held = [];
    const groups: HeldWrite[][] = [[]];
    let params = 0;
    for (const w of writes) {
      if (params + w.params.length > MAX_PARAMS && groups.at(-1)!.length > 0) {
        groups.push([]);
        params = 0;
      }
      groups.at(-1)!.push(w);
      params += w.params.length;
    }
    // Until the last of them is done every statement of the unit waits (`all`), so none runs
    // between two of them, nor before the first.
    const sending = groups.reduce((sent, group) => sent.then(() => this.send(group)), this.sending ?? Promise.resolve());
    this.sending = sending;
    const done = () => {
      if (this.sending === sending) this.sending = null;
    };
    sending.then(done, done);
    return sending;
  }

  private send(writes: readonly HeldWrite[]): Promise<void> {
    if (writes.length === 1) {
      const [w] = writes as [HeldWrite];
      return this.run(w.options.with ? `with ${w.options.with} ${w.sql}` : w.sql, w.params).then((rows) => w.options.check?.(rows.length));
    }
    const members: string[] = [];
    const counted: string[] = [];
    writes.forEach((w, i) => {
      if (w.options.with) members.push(w.options.with);
      members.push(`w${i} as (${w.sql})`);
      if (w.options.check) counted.push(`(select count(*) from w${i}) as w${i}`);
    });
    const sql = `with ${members.join(', ')} select ${counted.length > 0 ? counted.join(', ') : '1'}`;
    return this.run(
      sql,
      writes.flatMap((w) => w.params),
    ).then(([counts]) => {
      writes.forEach((w, i) => w.options.check?.(Number(counts?.[`w${i}`])));
    });
  }

  async one(sql: string, params: readonly unknown[] = []): Promise<Row | null> {
    return (await this.all(sql, params))[0] ?? null;
  }

  /**
   * A select list in which the exact money columns come back as decimal text (PostgreSQL's
   * driver would otherwise hand numeric over as it likes); `prefix` qualifies every column.
   */
  columns(all: readonly string[], exact: readonly string[], prefix = ''): string {
    return all
      .map((c) => (this.dialect === 'postgresql' && exact.includes(c) ? `${prefix}${c}::text as ${c}` : `${prefix}${c}`))
      .join(', ');
  }

  /** SUM of an exact USD column as an exact value (SQLite: int64 arithmetic, never float). */
  sum(column: string): string {
    return this.dialect === 'postgresql' ? `SUM(${column})` : `SUM(CAST(${column} AS INTEGER))`;
  }

  /**
   * An exact integer (a column, or a `?` bound with `num`) in a form whose comparisons are
   * numeric, whatever its size: itself on PostgreSQL (numeric(78,0)); on SQLite, whose TEXT holds
   * it as a decimal without leading zeros, right-aligned in 78 places — a space sorts before every
   * digit, so a shorter number sorts first, as `printf('%078d')` would but past 2^63.
   */
  exact(expr: string): string {
    return this.dialect === 'postgresql' ? expr : `printf('%78s', ${expr})`;
  }

  /** A zero-padded decimal of an exact integer expression, as TEXT: string order is numeric order. */
  padded(expr: string): string {
    return this.dialect === 'postgresql' ? `LPAD((${expr})::text, 78, '0')` : `printf('%078d', ${expr})`;
  }
}

export const ms = (v: unknown): Date => new Date(Number(v));
export const json = (v: unknown): unknown => JSON.parse(String(v));
