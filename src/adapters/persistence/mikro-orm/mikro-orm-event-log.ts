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
