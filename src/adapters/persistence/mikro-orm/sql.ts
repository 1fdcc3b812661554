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
  all(params: readonly unknown[], cb: (e: Error | null, rows?: Row[]) => void): void;
  finalize(cb?: () => void): void;
}
interface SqliteConnection {
  all(sql: string, params: readonly unknown[], cb: (e: Error | null, rows?: Row[]) => void): void;
  prepare(sql: string, cb: (e: Error | null) => void): SqliteStatement;
}

/** Prepared statements kept per SQLite connection, by SQL text (the stores' SQL is a fixed set). */
const prepared = new WeakMap<object, Map<string, SqliteStatement>>();
const MAX_PREPARED = 256;

/**
 * Each statement of node-sqlite3's `db.all(sql)` is prepared, run and finalized: three trips to
 * libuv's thread pool. A statement prepared once per connection and kept runs in one.
 */
function preparedRunner(db: SqliteConnection): Runner {
  let cache = prepared.get(db);
  if (!cache) prepared.set(db, (cache = new Map()));
  const statements = cache;
  return (sql, params) =>
    new Promise((resolve, reject) => {
      let statement = statements.get(sql);
      if (!statement) {
        if (statements.size >= MAX_PREPARED) {
          const [oldest, s] = statements.entries().next().value!;
          statements.delete(oldest);
          s.finalize();
        }
        // A failed prepare (bad SQL) reports through the `all` below; it is not kept.
        statement = db.prepare(sql, (e) => {
          if (e) statements.delete(sql);
        });
        statements.set(sql, statement);
      }
      statement.all(params, (e, rows) => (e ? reject(e) : resolve(rows ?? [])));
    });
}

/** Finalizes the statements kept for a connection: SQLite will not close a connection that has some. */
export function finalizePrepared(connection: unknown): Promise<void> {
  const statements = prepared.get(connection as object);
  if (!statements) return Promise.resolve();
  prepared.delete(connection as object);
  return Promise.all([...statements.values()].map((s) => new Promise<void>((resolve) => s.finalize(() => resolve())))).then(() => undefined);
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

export class Sql {
  constructor(
    private readonly run: Runner,
    readonly dialect: Dialect,
  ) {}

  all(sql: string, params: readonly unknown[] = []): Promise<Row[]> {
    return this.run(sql, params);
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

  /** A zero-padded decimal of an exact integer expression, as TEXT: string order is numeric order. */
  padded(expr: string): string {
    return this.dialect === 'postgresql' ? `LPAD((${expr})::text, 78, '0')` : `printf('%078d', ${expr})`;
  }
}

export const ms = (v: unknown): Date => new Date(Number(v));
export const json = (v: unknown): unknown => JSON.parse(String(v));
