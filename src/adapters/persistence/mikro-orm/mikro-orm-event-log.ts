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
   * Ids come from a counter row bumped in the appending transaction: a rolled-back transaction
   * burns no id, and concurrent appenders queue on the row, so committed ids have no gaps.
   */
  async append(e: NewEvent): Promise<StoredEvent> {
    const r = await this.sql.one(`update event_counter set last_id = last_id + 1 where id = 1 returning last_id`);
    const id = Number(r!.last_id);
    await this.sql.all(`insert into events (id, type, network, token_id, data, created_at) values (?, ?, ?, ?, ?, ?)`, [
      id,
      e.type,
      e.network,
      e.tokenId,
      JSON.stringify(e.data),
      e.createdAt.getTime(),
    ]);
    return { ...e, id };
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
    const rows = await this.sql.all(`select * from events where ${where.join(' and ')} order by id limit ?`, [...params, limit]);
    return rows.map(rowToEvent);
  }

  async lastId(): Promise<number> {
    const r = await this.sql.one(`select coalesce(max(id), 0) as id from events`);
    return Number(r?.id ?? 0);
  }
}
