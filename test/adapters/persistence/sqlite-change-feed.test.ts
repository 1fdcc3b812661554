/** The SQLite change feed's liveness: it vouches for the log only while its polls succeed and keep up. */
import { describe, expect, it } from 'vitest';
import { SqliteChangeFeed } from '../../../src/adapters/persistence/mikro-orm/sqlite-change-feed.js';
import type { Row } from '../../../src/adapters/persistence/mikro-orm/sql.js';

describe('SqliteChangeFeed', () => {
  it('names each new event’s token once; a failed poll or one that is overdue makes it not live, and the next good poll says forget everything', async () => {
    let now = 0;
    let log: Row[] = [{ id: 1, token_id: 'tok_old' }];
    let failing = false;
    const read = async (sql: string, params: readonly unknown[]): Promise<Row[]> => {
      if (failing) throw new Error('SQLITE_BUSY');
      if (sql.includes('max(id)')) return [{ id: log.length }];
      return log.filter((r) => Number(r.id) > Number(params[0]));
    };
    const changes = new SqliteChangeFeed(read, 50, () => now);
    await changes.start();
    const heard: (string | null)[] = [];
    changes.feed.subscribe((t) => heard.push(t));
    expect(changes.feed.live).toBe(true);

    log = [...log, { id: 2, token_id: 'tok_a' }, { id: 3, token_id: null }, { id: 4, token_id: 'tok_b' }];
    await changes.poll();
    await changes.poll();
    expect(heard).toEqual(['tok_a', 'tok_b']);

    failing = true;
    await changes.poll();
    expect(changes.feed.live).toBe(false);
    expect(heard.at(-1)).toBeNull();
    failing = false;
    log = [...log, { id: 5, token_id: 'tok_c' }];
    await changes.poll(); // nothing committed meanwhile is lost: the log is read from the last id seen
    expect(heard.slice(-2)).toEqual(['tok_c', null]);
    expect(changes.feed.live).toBe(true);

    now += 200; // four intervals without a poll: not live
    expect(changes.feed.live).toBe(false);
    await changes.poll();
    expect(changes.feed.live).toBe(true);
    await changes.close();
  });
});
