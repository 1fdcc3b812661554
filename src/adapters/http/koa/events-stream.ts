/**
 * GET /api/events: Server-Sent Events read from the event log (the outbox), so every committed
 * event is delivered in id order and a client resumes exactly where it left off with
 * Last-Event-ID. The log is polled; several service processes share it through the database.
 */
import { PassThrough } from 'node:stream';
import type { Context } from 'koa';
import { eventView } from '../../../app/views.js';
import { ValidationError } from '../../../domain/errors.js';
import type { Network } from '../../../domain/network.js';
import type { UnitOfWork } from '../../../ports/unit-of-work.js';

export interface EventStreamOptions {
  pollMs: number;
  heartbeatMs: number;
  batch: number;
}

export const DEFAULT_STREAM: EventStreamOptions = { pollMs: 500, heartbeatMs: 15_000, batch: 100 };

export async function streamEvents(
  ctx: Context,
  uow: UnitOfWork,
  filter: { tokenId?: string | undefined; network?: Network | undefined },
  options = DEFAULT_STREAM,
  shutdown?: AbortSignal,
): Promise<void> {
  const resumeHeader = ctx.get('last-event-id');
  if (resumeHeader && !/^\d{1,15}$/.test(resumeHeader)) throw ValidationError.of('Last-Event-ID', 'must be an event id');
  // Without Last-Event-ID the stream starts at the present, like a live feed.
  let lastId = resumeHeader ? Number(resumeHeader) : await uow.read((s) => s.events.lastId());

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
    closed = true;
    if (timer) clearTimeout(timer);
    out.end();
  };
  ctx.req.on('close', stop);
  out.on('error', stop);
  // The service is stopping: end the stream so the server can close (clients reconnect elsewhere).
  shutdown?.addEventListener('abort', stop, { once: true });

  const poll = async () => {
    if (closed) return;
    try {
      for (;;) {
        const events = await uow.read((s) => s.events.readAfter(lastId, filter, options.batch));
        for (const e of events) {
          out.write(`id: ${e.id}\nevent: ${e.type}\ndata: ${JSON.stringify(eventView(e))}\n\n`);
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
