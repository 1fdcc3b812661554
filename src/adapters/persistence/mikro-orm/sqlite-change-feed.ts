/**
 * The change feed on a SQLite file: this process's commits as each unit commits (the unit of
 * work tells the feed), other processes' by reading the event log's tail on a reader connection
 * every `intervalMs` (50 ms by default). SQLite assigns event ids under its write lock, one
 * writer at a time, so ids commit in order and reading after the last id seen misses nothing.
 * The feed is live while its polls succeed: one that fails, or none for 4 intervals (the process
 * was too busy to poll), makes it not live until the next one succeeds — and then says `null`
 * (forget everything) before it is live again.
 */
import { CommitFeed } from '../kit/commit-feed.js';
import type { Runner } from './sql.js';

const BATCH = 1_000;

export class SqliteChangeFeed {
  readonly feed: CommitFeed;
  private lastId = 0;
  private lastPollAt = -Infinity;
  private wasLive = false;
  private polling: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly read: Runner,
    private readonly intervalMs = 50,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.feed = new CommitFeed(() => this.isLive());
  }

  private isLive(): boolean {
    return this.now() - this.lastPollAt < this.intervalMs * 4;
  }

  async start(): Promise<void> {
    const [row] = await this.read('select coalesce(max(id), 0) as id from events', []);
    this.lastId = Number(row?.id ?? 0);
    this.lastPollAt = this.now();
    this.wasLive = true;
    this.timer = setInterval(() => void this.poll(), this.intervalMs);
    this.timer.unref();
  }

  /** Reads the log's tail once (exported for tests: they need not wait for the timer). */
  poll(): Promise<void> {
    this.polling ??= this.pollOnce().finally(() => (this.polling = null));
    return this.polling;
  }

  private async pollOnce(): Promise<void> {
    const gap = !this.isLive(); // anything may have been missed by those who trusted the feed meanwhile
    try {
      for (;;) {
        const rows = await this.read('select id, token_id from events where id > ? order by id limit ?', [this.lastId, BATCH]);
        for (const r of rows) {
          this.lastId = Number(r.id);
          if (r.token_id) this.feed.emit(String(r.token_id));
        }
        if (rows.length < BATCH) break;
      }
      if (gap || !this.wasLive) this.feed.emit(null);
      this.lastPollAt = this.now();
      this.wasLive = true;
    } catch {
      this.wasLive = false;
      this.lastPollAt = -Infinity;
      this.feed.emit(null);
    }
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.polling;
  }
}
