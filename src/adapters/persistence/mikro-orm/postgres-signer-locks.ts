/**
 * One signer per key on PostgreSQL (docs/decisions/0031): a session-level advisory lock per
 * signing address and schema, on a connection of its own that lives as long as the process. The
 * server releases a session's locks the moment the session ends, so a process that stops, crashes
 * or is killed -9 lets the next one take its keys at once; TCP keepalives (asked of the server
 * for this session) and a ping every few seconds end the session of a host that vanished
 * without closing it. The same connection LISTENs on `launchpad_custody` (migration 0014), so
 * custody's signer hears an intent as soon as it commits.
 *
 * Losing the connection loses every lock: `holds` says false from then on, and a caller that
 * wants a lock again asks for it (a new connection is made on demand).
 */
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import type { SignerLocks } from '../../../ports/signer-locks.js';
import type { PgClientClass } from './postgres-change-feed.js';
import { searchPathOption } from './orm-options.js';

const CUSTODY_CHANNEL = 'launchpad_custody';
const APPLICATION = 'launchpad signer ';

type PgClient = InstanceType<PgClientClass>;

export class PostgresSignerLocks implements SignerLocks {
  private client: PgClient | null = null;
  private connecting: Promise<PgClient> | null = null;
  private schemaName = '';
  private readonly held = new Set<string>();
  private readonly listeners = new Set<() => void>();
  private ping: NodeJS.Timeout | null = null;
  private retry: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly Client: PgClientClass,
    private readonly url: string,
    /** The schema the locks are scoped to (null: the connection's default). */
    private readonly schema: string | null,
    /** How an operator finds this process: "pid 4242 on api-2". */
    private readonly identity = `pid ${process.pid} on ${hostname()}`,
    private readonly pingMs = 5_000,
  ) {}

  async tryAcquire(address: string): Promise<boolean> {
    const a = address.toLowerCase();
    if (this.held.has(a)) return true;
    const client = await this.connection();
    const r = await client.query(`select pg_try_advisory_lock(${this.key(a)}) as ok`);
    const ok = r.rows[0]?.ok === true;
    if (ok && this.client === client) this.held.add(a);
    return ok && this.client === client;
  }

  holds(address: string): boolean {
    return this.held.has(address.toLowerCase());
  }

  async holder(address: string): Promise<string | null> {
    const client = await this.connection();
    const key = this.key(address.toLowerCase());
    const r = await client.query(
      `select a.pid, a.application_name from pg_locks l join pg_stat_activity a on a.pid = l.pid
       where l.locktype = 'advisory' and l.granted and l.objsubid = 1
         and l.classid = ${(key >> 32n) & 0xffffffffn} and l.objid = ${key & 0xffffffffn} limit 1`,
    );
    const row = r.rows[0];
    if (!row) return null;
    const name = String(row.application_name ?? '');
    return name.startsWith(APPLICATION) ? name.slice(APPLICATION.length) : `PostgreSQL session ${String(row.pid)}`;
  }

  onIntent(listener: () => void): () => void {
    this.listeners.add(listener);
    // Listening needs the connection: make it now rather than at the first lock.
    void this.connection().catch(() => this.relisten());
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    const client = this.client ?? (await this.connecting?.catch(() => null)) ?? null;
    this.drop();
    await client?.end().catch(() => undefined);
  }

  /** A signed 64-bit key per schema and address: advisory locks are per database, not per schema. */
  private key(address: string): bigint {
    const digest = createHash('sha256').update(`launchpad signer\n${this.schemaName}\n${address}`).digest();
    return digest.readBigInt64BE(0);
  }

  private connection(): Promise<PgClient> {
    if (this.client) return Promise.resolve(this.client);
    if (this.closed) return Promise.reject(new Error('signer locks closed'));
    this.connecting ??= this.connect().finally(() => (this.connecting = null));
    return this.connecting;
  }

  private async connect(): Promise<PgClient> {
    const client = new this.Client({
      connectionString: this.url,
      application_name: `${APPLICATION}${this.identity}`.slice(0, 63),
      ...(this.schema ? { options: searchPathOption(this.schema) } : {}),
    });
    client.on('error', () => this.down(client));
    client.on('end', () => this.down(client));
    client.on('notification', (n) => {
      if (n.channel === CUSTODY_CHANNEL && n.payload === this.schemaName) for (const l of [...this.listeners]) l();
    });
    try {
      await client.connect();
      this.schemaName = String((await client.query('select current_schema() as s')).rows[0]!.s);
      // The server notices a peer that vanished without closing (a host gone) within ~25 s.
      await client.query('set tcp_keepalives_idle = 10').catch(() => undefined);
      await client.query('set tcp_keepalives_interval = 5').catch(() => undefined);
      await client.query('set tcp_keepalives_count = 3').catch(() => undefined);
      await client.query(`listen ${CUSTODY_CHANNEL}`);
    } catch (e) {
      await client.end().catch(() => undefined);
      throw e;
    }
    this.client = client;
    this.ping = setInterval(() => void client.query('select 1').catch(() => this.down(client)), this.pingMs);
    this.ping.unref();
    // Heard nothing while not listening: the listeners look for what may have been asked meanwhile.
    for (const l of [...this.listeners]) l();
    return client;
  }

  private down(client: PgClient): void {
    if (this.client !== client) return;
    this.drop();
    client.end().catch(() => undefined);
    this.relisten();
  }

  /** Listening again within a second while anyone listens (this process may take custody over). */
  private relisten(): void {
    if (this.closed || this.listeners.size === 0 || this.client) return;
    if (this.retry) clearTimeout(this.retry);
    this.retry = setTimeout(() => void this.connection().catch(() => this.relisten()), 1_000);
    this.retry.unref();
  }

  private drop(): void {
    if (this.ping) clearInterval(this.ping);
    this.ping = null;
    this.client = null;
    this.held.clear();
  }
}
