/**
 * Statements on one MikroORM connection, inside the unit of work's transaction when there is
 * one. Every statement returns rows (writes use RETURNING), so a compare-and-set knows whether
 * it won on both drivers.
 */
import type { Knex } from '@mikro-orm/knex';

export type Dialect = 'postgresql' | 'sqlite';
export type Row = Record<string, unknown>;

export class Sql {
  constructor(
    private readonly knex: Knex,
    private readonly trx: Knex.Transaction | undefined,
    readonly dialect: Dialect,
  ) {}

  async all(sql: string, params: readonly unknown[] = []): Promise<Row[]> {
    const query = this.knex.raw(sql, params as Knex.RawBinding[]);
    if (this.trx) query.transacting(this.trx);
    const result: unknown = await query;
    if (this.dialect === 'postgresql') return (result as { rows: Row[] }).rows;
    // A statement the driver runs without rows (DDL, DELETE) answers with no array.
    return Array.isArray(result) ? (result as Row[]) : [];
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
