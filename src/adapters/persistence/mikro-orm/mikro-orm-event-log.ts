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

/** What a `comment.posted` event holds (docs/api.md "Comments"). */
type PostedData = { comment?: { commentId?: unknown }; paymentId?: unknown };

export class MikroOrmEventLog implements EventLog {
  constructor(private readonly sql: Sql) {}

  /**
   * Gapless ids without a sequence: on PostgreSQL a counter row bumped in the appending
   * transaction by the events' number (concurrent appenders queue on the row, a rollback burns
   * nothing); on SQLite the transaction already holds the database write lock, so the max read
   * once is safe. One statement for any number of events (a trade's and its fee shares', a
   * batch's deliveries), held with the unit's other writes on PostgreSQL (decision 0055).
   */
  append(e: NewEvent): Promise<void> {
    return this.appendAll([e]);
  }

  async appendAll(events: readonly NewEvent[]): Promise<void> {
    const n = events.length;
    if (n === 0) return;
    const values = events.flatMap((e) => [e.type, e.network, e.tokenId, JSON.stringify(e.data), e.createdAt.getTime()]);
    const check = (rows: number) => {
      if (rows !== n) throw new Error(`appended ${rows} of ${n} events`);
    };
    if (this.sql.dialect === 'postgresql') {
      await this.sql.write(
        `insert into events (id, type, network, token_id, data, created_at)
         ${events.map((_, i) => `select event_ids.last_id - ${n - 1 - i}, ?, ?, ?, ?::text, ?::bigint from event_ids`).join(' union all ')} returning id`,
        values,
        { key: 'event_counter', with: `event_ids as (update event_counter set last_id = last_id + ${n} where id = 1 returning last_id)`, check },
      );
    } else {
      await this.sql.write(
        `insert into events (id, type, network, token_id, data, created_at)
         ${events.map((_, i) => `select m.base + ${i + 1}, ?, ?, ?, ?, ? from m`).join(' union all ')} returning id`,
        values,
        { with: 'm as (select coalesce(max(id), 0) as base from events)', check },
      );
    }
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

  async withholdComment(tokenId: string, commentId: string, comment: unknown): Promise<string[]> {
    // The (token_id, id) index finds the token's events; `like` keeps the rows read to the
    // comment's own (an id's `_` matches itself too), and the parsed id decides.
    const rows = await this.sql.all(`select id, data from events where token_id = ? and type = 'comment.posted' and data like ?`, [tokenId, `%${commentId}%`]);
    const paymentIds: string[] = [];
    for (const row of rows) {
      const data = json(row.data) as PostedData;
      if (data.comment?.commentId !== commentId) continue;
      await this.sql.all(`update events set data = ? where id = ? returning id`, [JSON.stringify({ ...data, comment }), Number(row.id)]);
      if (typeof data.paymentId === 'string') paymentIds.push(data.paymentId);
    }
    return paymentIds;
  }

  async lastId(tokenId?: string): Promise<number> {
    const r =
      tokenId === undefined
        ? await this.sql.one(`select coalesce(max(id), 0) as id from events`)
        : await this.sql.one(`select coalesce(max(id), 0) as id from events where token_id = ?`, [tokenId]); // the (token_id, id) index
    return Number(r?.id ?? 0);
  }
}
