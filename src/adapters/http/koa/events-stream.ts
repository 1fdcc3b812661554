/**
 * GET /api/events: Server-Sent Events read from the event log (the outbox), so every committed
 * event is delivered in id order and a client resumes exactly where it left off with
 * Last-Event-ID. The log is polled; several service processes share it through the database.
 *
 * Streams are long-lived, so they are capped (per client address and in total) and everything a
 * stream holds — its timer, its listeners on the request and on the service's shutdown signal,
 * its slot — is released the moment it ends, however it ends.
 */
import { PassThrough } from 'node:stream';
import type { Context } from 'koa';
import { latestEventId, readEvents } from '../../../app/tokens/read-events.js';
import type { AppDeps } from '../../../app/kit/deps.js';
import { RateLimited, ServiceUnavailable, ValidationError } from '../../../domain/errors.js';
import type { Network } from '../../../domain/network.js';

export interface EventStreamOptions {
  pollMs: number;
  heartbeatMs: number;
  batch: number;
  /** Concurrent streams per client address (429 beyond) and in total (503 beyond). */
  maxPerClient: number;
  maxTotal: number;
}

export const DEFAULT_STREAM: EventStreamOptions = { pollMs: 500, heartbeatMs: 15_000, batch: 100, maxPerClient: 10, maxTotal: 1_000 };

/** The open streams of one HTTP app: who holds how many slots. */
export class EventStreams {
  private readonly perClient = new Map<string, number>();
  private total = 0;

  constructor(private readonly options: Pick<EventStreamOptions, 'maxPerClient' | 'maxTotal'>) {}

  get open(): number {
    return this.total;
  }

  /** Takes a slot for `client` or throws; the returned function gives it back (once). */
  acquire(client: string): () => void {
    const mine = this.perClient.get(client) ?? 0;
    if (mine >= this.options.maxPerClient) {
      throw new RateLimited(this.options.maxPerClient, 0, 5, `At most ${this.options.maxPerClient} open event streams per client.`, {
        reason: 'too_many_event_streams',
      });
    }
    if (this.total >= this.options.maxTotal) {
      throw new ServiceUnavailable('The service holds as many event streams as it can; try again shortly.', 5, {
        reason: 'event_streams_exhausted',
      });
    }
    this.perClient.set(client, mine + 1);
    this.total += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total -= 1;
      const left = (this.perClient.get(client) ?? 1) - 1;
      if (left === 0) this.perClient.delete(client);
      else this.perClient.set(client, left);
    };
  }
}

export async function streamEvents(
  ctx: Context,
  deps: Pick<AppDeps, 'uow'>,
  filter: { tokenId?: string | undefined; network?: Network | undefined },
  streams: EventStreams,
  client: string,
  options = DEFAULT_STREAM,
  shutdown?: AbortSignal,
): Promise<void> {
  const resumeHeader = ctx.get('last-event-id');
  if (resumeHeader && !/^\d{1,15}$/.test(resumeHeader)) throw ValidationError.of('Last-Event-ID', 'must be an event id');
  const release = streams.acquire(client);
  let lastId: number;
  try {
    // Without Last-Event-ID the stream starts at the present, like a live feed.
    lastId = resumeHeader ? Number(resumeHeader) : await latestEventId(deps);
  } catch (e) {
    release();
    throw e;
  }

  const out = new PassThrough();
  ctx.req.socket.setTimeout(0);
  ctx.req.socket.setKeepAlive(true);
  ctx.status = 200;
  ctx.set({ 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
  ctx.body = out;
  out.write(`retry: 2000\n\n`);

  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let lastWrite = Date.now();
  const stop = () => {
    if (closed) return;
    closed = true;
    if (timer) clearTimeout(timer);
    ctx.req.off('close', stop);
    out.off('error', stop);
    out.off('close', stop);
    shutdown?.removeEventListener('abort', stop);
    release();
    out.end();
  };
  ctx.req.on('close', stop);
  out.on('error', stop);
  out.on('close', stop);
  // The service is stopping: end the stream so the server can close (clients reconnect elsewhere).
  if (shutdown?.aborted) return stop();
  shutdown?.addEventListener('abort', stop, { once: true });

  const poll = async () => {
    if (closed) return;
    try {
      for (;;) {
        const events = await readEvents(deps, lastId, filter, options.batch);
        if (closed) return;
        for (const e of events) {
          out.write(`id: ${e.id}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
          lastId = e.id;
          lastWrite = Date.now();
        }
        if (events.length < options.batch) break;
      }
      if (Date.now() - lastWrite >= options.heartbeatMs) {
        out.write(`: keep-alive\n\n`);
        lastWrite = Date.now();
      }
    } catch {
      // A database hiccup: the client reconnects with Last-Event-ID and misses nothing.
      stop();
      return;
    }
    if (!closed) timer = setTimeout(() => void poll(), options.pollMs);
  };
  await poll();
}
