/**
 * Any outbox table in SQL (payouts, deliveries, deployments): the outbox columns every such table
 * has, plus each table's own, declared once in an `OutboxTable`.
 */
import type { Network } from '../../../domain/network.js';
import type { OutboxFields, OutboxState } from '../../../domain/outbox.js';
import type { OutboxBacklog, OutboxStore } from '../../../ports/outbox-store.js';
import { exactlyOne, ms, type Row, type Sql } from './sql.js';

const OUTBOX_COLUMNS = ['network', 'state', 'tx_hash', 'raw_tx', 'source_id', 'attempts', 'next_attempt_at', 'last_error', 'created_at', 'updated_at'];

export interface OutboxTable<T extends OutboxFields> {
  table: string;
  /** The id column (first of `columns`). */
  id: string;
  /** The table's own columns, the id first, with how each is written; `exact` ones are money. */
  columns: { name: string; exact?: boolean; value(item: T): unknown }[];
  read(row: Row, outbox: OutboxFields): T;
  /** A condition `due` adds: which PENDING or SENT items it may return (default: all). */
  dueWhere?: string;
}

const outboxValues = (i: OutboxFields) => [
  i.network, i.state, i.txHash, i.rawTx, i.sourceId, i.attempts, i.nextAttemptAt.getTime(), i.lastError, i.createdAt.getTime(), i.updatedAt.getTime(),
];

function readOutbox(r: Row): OutboxFields {
  return {
    network: r.network as Network,
    state: r.state as OutboxState,
    txHash: (r.tx_hash as string | null) ?? null,
    rawTx: (r.raw_tx as string | null) ?? null,
    sourceId: String(r.source_id),
    attempts: Number(r.attempts),
    nextAttemptAt: ms(r.next_attempt_at),
    lastError: (r.last_error as string | null) ?? null,
    createdAt: ms(r.created_at),
    updatedAt: ms(r.updated_at),
  };
}

export class MikroOrmOutboxStore<T extends OutboxFields> implements OutboxStore<T> {
  private readonly names: string[];

  constructor(
    protected readonly sql: Sql,
    private readonly t: OutboxTable<T>,
  ) {
    this.names = [...t.columns.map((c) => c.name), ...OUTBOX_COLUMNS];
  }

  private select(): string {
    return this.sql.columns(this.names, this.t.columns.filter((c) => c.exact).map((c) => c.name));
  }

  private row(r: Row): T {
    return this.t.read(r, readOutbox(r));
  }

  async enqueue(item: T): Promise<T> {
    const marks = this.names.map(() => '?').join(', ');
    const inserted = await this.sql.all(
      `insert into ${this.t.table} (${this.names.join(', ')}) values (${marks}) on conflict (source_id) do nothing returning ${this.t.id}`,
      [...this.t.columns.map((c) => c.value(item)), ...outboxValues(item)],
    );
    if (inserted.length === 1) return item;
    return (await this.findBySource(item.sourceId))!;
  }

  async add(item: T): Promise<void> {
    // A second item for the source breaks its unique index: the unit fails, as the port says.
    // Keyed by its row like a move, so a move of it in the same unit is never sent beside it
    // (the move would not see the row its own statement inserts).
    await this.sql.write(
      `insert into ${this.t.table} (${this.names.join(', ')}) values (${this.names.map(() => '?').join(', ')})`,
      [...this.t.columns.map((c) => c.value(item)), ...outboxValues(item)],
      { key: this.rowKey(item) },
    );
  }

  async get(id: string): Promise<T | null> {
    const r = await this.sql.one(`select ${this.select()} from ${this.t.table} where ${this.t.id} = ?`, [id]);
    return r ? this.row(r) : null;
  }

  async findBySource(sourceId: string): Promise<T | null> {
    const r = await this.sql.one(`select ${this.select()} from ${this.t.table} where source_id = ?`, [sourceId]);
    return r ? this.row(r) : null;
  }

  async update(next: T, from: OutboxState): Promise<boolean> {
    return (await this.sql.all(...this.moveOf(next, from))).length === 1;
  }

  async move(next: T, from: OutboxState, lost: () => Error): Promise<void> {
    await this.sql.write(...this.moveOf(next, from), { key: this.rowKey(next), check: exactlyOne(lost) });
  }

  /** The held-write key of an item's row (`Sql.write`): its table and id. */
  private rowKey(item: T): string {
    return `${this.t.table}:${this.t.columns[0]!.value(item)}`;
  }

  /** The compare-and-set on an item's state: the outbox columns move; of the table's own, only those marked mutable would (none today but a deployment's block number, written as it is confirmed). */
  private moveOf(next: T, from: OutboxState): [string, unknown[]] {
    const own = this.t.columns.slice(1);
    const sets = [...own.map((c) => `${c.name} = ?`), 'state = ?', 'tx_hash = ?', 'raw_tx = ?', 'attempts = ?', 'next_attempt_at = ?', 'last_error = ?', 'updated_at = ?'];
    return [
      `update ${this.t.table} set ${sets.join(', ')} where ${this.t.id} = ? and state = ? returning ${this.t.id}`,
      [
        ...own.map((c) => c.value(next)),
        next.state, next.txHash, next.rawTx, next.attempts, next.nextAttemptAt.getTime(), next.lastError, next.updatedAt.getTime(),
        this.t.columns[0]!.value(next), from,
      ],
    ];
  }

  async due(now: Date, limit: number): Promise<T[]> {
    const also = this.t.dueWhere ? ` and ${this.t.dueWhere}` : '';
    const rows = await this.sql.all(
      `select ${this.select()} from ${this.t.table} where state in ('PENDING', 'SENT') and next_attempt_at <= ?${also} order by created_at, ${this.t.id} limit ?`,
      [now.getTime(), limit],
    );
    return rows.map((r) => this.row(r));
  }

  async backlog(): Promise<OutboxBacklog> {
    const rows = await this.sql.all(
      `select state, count(*) as n, min(created_at) as oldest from ${this.t.table} where state in ('PENDING', 'SENT') group by state`,
      [],
    );
    const of = (state: string) => rows.find((r) => r.state === state);
    const oldest = rows.map((r) => Number(r.oldest)).reduce<number | null>((min, v) => (min === null || v < min ? v : min), null);
    return { pending: Number(of('PENDING')?.n ?? 0), sent: Number(of('SENT')?.n ?? 0), oldestCreatedAt: oldest === null ? null : new Date(oldest) };
  }

  /** The items matching `where` (SQL after WHERE, with its own order), for a table's own queries. */
  protected async where(where: string, params: unknown[]): Promise<T[]> {
    const rows = await this.sql.all(`select ${this.select()} from ${this.t.table} where ${where}`, params);
    return rows.map((r) => this.row(r));
  }
}
