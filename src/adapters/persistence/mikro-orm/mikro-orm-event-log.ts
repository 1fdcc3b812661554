import type { NewEvent, StoredEvent } from '../../../domain/event.js';
import type { Network } from '../../../domain/network.js';
import type { EventFilter, EventLog } from '../../../ports/event-log.js';
import { json, ms, type Row, type Sql } from './sql.js';

const rowToEvent = (r: Row): StoredEvent => ({
  id: Number(r.id),
  type: r.type as StoredEvent['type'],
  network: r.network as Network,
  tokenId: (r.token_id as string | null) ?? null,
  data: json(r.data) as Record<string, unknown>,
  createdAt: ms(r.created_at),
});

export class MikroOrmEventLog implements EventLog {
  constructor(private readonly sql: Sql) {}

  /**
   * Gapless ids without a sequence: on PostgreSQL a counter row bumped in the appending
   * transaction (concurrent appenders queue on the row, a rollback burns nothing), in one
   * statement; on SQLite the transaction already holds the database write lock, so max + 1 is
   * safe.
   */
  async append(e: NewEvent): Promise<StoredEvent> {
    const values = [e.type, e.network, e.tokenId, JSON.stringify(e.data), e.createdAt.getTime()];
    const r =
      this.sql.dialect === 'postgresql'
        ? await this.sql.one(
            `with c as (update event_counter set last_id = last_id + 1 where id = 1 returning last_id)
             insert into events (id, type, network, token_id, data, created_at) select c.last_id, ?, ?, ?, ?, ? from c returning id`,
            values,
          )
        : await this.sql.one(
            `insert into events (id, type, network, token_id, data, created_at)
             values ((select coalesce(max(id), 0) + 1 from events), ?, ?, ?, ?, ?) returning id`,
            values,
          );
    return { ...e, id: Number(r!.id) };
  }

  /**
   * Several events in one statement, with the same gapless ids: the counter bumped by their
   * number (PostgreSQL), or the max read once for all of them (SQLite) — a trade's event and its
   * fee shares', a batch's deliveries.
   */
  async appendAll(events: readonly NewEvent[]): Promise<StoredEvent[]> {
    if (events.length <= 1) return Promise.all(events.map((e) => this.append(e)));
    const n = events.length;
    const values = events.flatMap((e) => [e.type, e.network, e.tokenId, JSON.stringify(e.data), e.createdAt.getTime()]);
    const rows =
      this.sql.dialect === 'postgresql'
        ? await this.sql.all(
            `with c as (update event_counter set last_id = last_id + ${n} where id = 1 returning last_id)
             insert into events (id, type, network, token_id, data, created_at)
             ${events.map((_, i) => `select c.last_id - ${n - 1 - i}, ?, ?, ?, ?::text, ?::bigint from c`).join(' union all ')} returning id`,
            values,
          )
        : await this.sql.all(
            `with m as (select coalesce(max(id), 0) as base from events)
             insert into events (id, type, network, token_id, data, created_at)
             ${events.map((_, i) => `select m.base + ${i + 1}, ?, ?, ?, ?, ? from m`).join(' union all ')} returning id`,
            values,
          );
    const ids = rows.map((r) => Number(r.id)).sort((a, b) => a - b);
    if (ids.length !== n) throw new Error(`appended ${ids.length} of ${n} events`);
    return events.map((e, i) => ({ ...e, id: ids[i]! }));
  }

  async readAfter(afterId: number, filter: EventFilter, limit: number): Promise<StoredEvent[]> {
    const where = ['id > ?'];
    const params: unknown[] = [afterId];
    if (filter.tokenId) {
      where.push('token_id = ?');
      params.push(filter.tokenId);
    }
    if (filter.network) {
      where.push('network = ?');
      params.push(filter.network);
    }
    const rows = await this.sql.all(`select id, type, network, token_id, data, created_at from events where ${where.join(' and ')} order by id limit ?`, [...params, limit]);
    return rows.map(rowToEvent);
  }

  async lastId(tokenId?: string): Promise<number> {
    const r =
      tokenId === undefined
        ? await this.sql.one(`select coalesce(max(id), 0) as id from events`)
        : await this.sql.one(`select coalesce(max(id), 0) as id from events where token_id = ?`, [tokenId]); // the (token_id, id) index
    return Number(r?.id ?? 0);
  }
}
