/**
 * The change feed across processes on PostgreSQL: a connection of its own LISTENs on the channel
 * the events trigger announces on (migration 0008); each notification of this schema names a
 * token whose events just committed, in this process or another. The feed is live only while
 * that connection listens: when it drops, the feed says so (`live` false, and `null` to every
 * subscriber: forget everything) and connects again after a second; once listening again it
 * says `null` once more (what committed meanwhile was not heard) and is live.
 */
import { CommitFeed } from '../kit/commit-feed.js';
import { searchPathOption } from './orm-options.js';

const EVENTS_CHANNEL = 'launchpad_events';

interface PgNotification {
  channel: string;
  payload?: string;
}
interface PgClient {
  connect(): Promise<unknown>;
  query(sql: string): Promise<{ rows: Array<Record<string, unknown>> }>;
  end(): Promise<void>;
  on(event: 'notification', listener: (n: PgNotification) => void): unknown;
  on(event: 'error' | 'end', listener: (e?: Error) => void): unknown;
}
export type PgClientClass = new (config: { connectionString: string; application_name?: string; options?: string }) => PgClient;

export class PostgresChangeFeed {
  /** What subscribers see: this feed's notifications and this process's own commits. */
  readonly feed: CommitFeed;
  private client: PgClient | null = null;
  private listening = false;
  private closed = false;
  private retry: NodeJS.Timeout | null = null;

  constructor(
    private readonly Client: PgClientClass,
    private readonly url: string,
    /** The schema whose events count (null: the connection's default schema). */
    private readonly schema: string | null,
    private readonly retryMs = 1_000,
  ) {
    this.feed = new CommitFeed(() => this.listening);
  }

  /** Connects and listens; resolves once listening, or once the first attempt failed (it retries). */
  async start(): Promise<void> {
    await this.connect();
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    // Named, so an operator (or a test) can find the listener in pg_stat_activity.
    const client = new this.Client({
      connectionString: this.url,
      application_name: `launchpad changes ${this.schema ?? ''}`.trim(),
      ...(this.schema ? { options: searchPathOption(this.schema) } : {}),
    });
    this.client = client;
    client.on('error', () => this.down(client));
    client.on('end', () => this.down(client));
    let schema: string | null = null;
    client.on('notification', (n) => {
      if (n.channel !== EVENTS_CHANNEL || !n.payload || schema === null) return;
      const space = n.payload.indexOf(' ');
      if (n.payload.slice(0, space) !== schema) return;
      const tokenId = n.payload.slice(space + 1);
      if (tokenId) this.feed.emit(tokenId);
    });
    try {
      await client.connect();
      schema = String((await client.query('select current_schema() as s')).rows[0]!.s);
      await client.query(`listen ${EVENTS_CHANNEL}`);
      if (this.client !== client) return; // dropped meanwhile
      this.feed.emit(null); // whatever committed before we listened was not heard
      this.listening = true;
    } catch {
      this.down(client);
    }
  }

  private down(client: PgClient): void {
    if (this.client !== client) return;
    this.client = null;
    this.listening = false;
    this.feed.emit(null);
    client.end().catch(() => undefined);
    if (this.closed) return;
    this.retry = setTimeout(() => void this.connect(), this.retryMs);
    this.retry.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    const client = this.client;
    this.client = null;
    this.listening = false;
    await client?.end().catch(() => undefined);
  }
}
