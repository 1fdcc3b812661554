/**
 * A table as the stores see it, written once: each column with how a value is written to it,
 * and how a row read back becomes the value. The select list, the insert and the upsert are made
 * from it, so a store never repeats its column list, nor its row mapper.
 */
import { num } from './exact-bigint-type.js';
import type { Dialect, Row, Sql } from './sql.js';

interface ColumnSpec<T> {
  /** The value stored for `v`. */
  write: (v: T) => unknown;
  /** An exact integer (money, token amounts): written as `num`, read back as decimal text on PostgreSQL. */
  exact?: boolean;
  /** Written (a lower-cased key, a sort key) but never read back. */
  writeOnly?: boolean;
}

type Column<T> = ColumnSpec<T> | ((v: T) => unknown);

/** An exact integer column (null stays null). */
export const exactInt = <T>(write: (v: T) => bigint | null): ColumnSpec<T> => ({
  write: (v) => {
    const value = write(v);
    return value === null ? null : num(value);
  },
  exact: true,
});

/** A column only written: a key the queries use, never part of the value. */
export const writeOnly = <T>(write: (v: T) => unknown): ColumnSpec<T> => ({ write, writeOnly: true });

export class Table<T> {
  private readonly specs: [string, ColumnSpec<T>][];
  private readonly lists = new Map<string, string>();
  /** `insert into <table> (<every column>) values (?, …)`: its values are `values(v)`. */
  readonly insert: string;

  constructor(
    readonly name: string,
    columns: Record<string, Column<T>>,
    /** The value of a row read with `select`. */
    readonly fromRow: (r: Row) => T,
  ) {
    this.specs = Object.entries(columns).map(([c, spec]) => [c, typeof spec === 'function' ? { write: spec } : spec]);
    const names = this.specs.map(([c]) => c);
    this.insert = `insert into ${name} (${names.join(', ')}) values (${names.map(() => '?').join(', ')})`;
  }

  /** Every column's name, in `insert`'s order. */
  get columns(): string[] {
    return this.specs.map(([c]) => c);
  }

  /** The values of `insert`, in its columns' order. */
  values(v: T): unknown[] {
    return this.specs.map(([, spec]) => spec.write(v));
  }

  /** The values of `columns`, in that order (for an update of some of them). */
  valuesOf(columns: readonly string[], v: T): unknown[] {
    return columns.map((c) => this.spec(c).write(v));
  }

  /** `update <table> set <c> = ?, …` of `columns` (whose values are `valuesOf(columns, v)`); the caller adds its where clause. */
  update(columns: readonly string[]): string {
    for (const c of columns) this.spec(c);
    return `update ${this.name} set ${columns.map((c) => `${c} = ?`).join(', ')}`;
  }

  /** The select list of what `fromRow` reads (exact columns as text on PostgreSQL); `prefix` qualifies each. */
  select(sql: Sql, prefix = ''): string {
    const key = `${sql.dialect}:${prefix}`;
    let list = this.lists.get(key);
    if (list === undefined) this.lists.set(key, (list = this.selectList(sql.dialect, prefix)));
    return list;
  }

  /**
   * The select list of `select`, each column qualified by `prefix` and renamed `<as><column>`:
   * for a join whose tables share column names. `fromRowAs` reads it back.
   */
  selectAs(sql: Sql, prefix: string, as: string): string {
    return this.specs
      .filter(([, spec]) => !spec.writeOnly)
      .map(([c, spec]) => `${prefix}${c}${sql.dialect === 'postgresql' && spec.exact ? '::text' : ''} as ${as}${c}`)
      .join(', ');
  }

  /** The value of a row read with `selectAs(…, as)`; null when the outer join found none (its first column is null). */
  fromRowAs(r: Row, as: string): T | null {
    const own: Row = {};
    for (const [c, spec] of this.specs) if (!spec.writeOnly) own[c] = r[`${as}${c}`];
    const first = this.specs.find(([, spec]) => !spec.writeOnly)![0];
    return own[first] === null || own[first] === undefined ? null : this.fromRow(own);
  }

  /** `insert … on conflict (keys) do update set` the `changed` columns (default: every other) to the new row's. */
  upsert(keys: readonly string[], changed?: readonly string[]): string {
    const set = changed ?? this.specs.map(([c]) => c).filter((c) => !keys.includes(c));
    for (const c of [...keys, ...set]) this.spec(c);
    return `${this.insert} on conflict (${keys.join(', ')}) do update set ${set.map((c) => `${c} = excluded.${c}`).join(', ')}`;
  }

  private spec(column: string): ColumnSpec<T> {
    const found = this.specs.find(([c]) => c === column);
    if (!found) throw new Error(`${this.name} has no column ${column}`);
    return found[1];
  }

  private selectList(dialect: Dialect, prefix: string): string {
    return this.specs
      .filter(([, spec]) => !spec.writeOnly)
      .map(([c, spec]) => (dialect === 'postgresql' && spec.exact ? `${prefix}${c}::text as ${c}` : `${prefix}${c}`))
      .join(', ');
  }
}
