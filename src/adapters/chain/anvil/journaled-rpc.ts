/**
 * The devnet's public JSON-RPC endpoint: a small proxy in front of anvil that writes every
 * signed transaction to an append-only journal — synced to disk — before anvil sees it.
 *
 * anvil's state is saved only every few seconds, so a crash of everything (the service and both
 * chains) would lose transactions the service had already acknowledged: settlements the books
 * show as APPLIED, payouts the books show as SENT. On the next start the journal's transactions
 * that the restored chain does not know are sent again, each in a block with its original
 * timestamp, in their original order — so the same signed transactions land with the same
 * nonces, inside their authorization windows, and the chain equals the books again.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { Agent, createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Hex } from 'viem';

export interface JournalEntry {
  /** When the transaction was received, in Unix milliseconds. */
  t: number;
  raw: Hex;
}

/** Append-only, one JSON line per signed transaction, each synced before it is forwarded. */
export class TransactionJournal {
  private handle: Promise<FileHandle> | null = null;
  private tail: Promise<void> = Promise.resolve();

  constructor(readonly path: string) {}

  append(raws: Hex[]): Promise<void> {
    const lines = raws.map((raw) => JSON.stringify({ t: Date.now(), raw } satisfies JournalEntry) + '\n').join('');
    const write = this.tail.then(async () => {
      this.handle ??= open(this.path, 'a');
      const fh = await this.handle;
      await fh.appendFile(lines);
      await fh.datasync();
    });
    this.tail = write.catch(() => undefined);
    return write;
  }

  /** Every complete entry, oldest first (a line cut short by a crash is skipped). */
  read(): JournalEntry[] {
    if (!existsSync(this.path)) return [];
    const entries: JournalEntry[] = [];
    for (const line of readFileSync(this.path, 'utf8').split('\n')) {
      if (!line) continue;
      try {
        const e = JSON.parse(line) as JournalEntry;
        if (typeof e.t === 'number' && typeof e.raw === 'string' && /^0x[0-9a-fA-F]+$/.test(e.raw)) entries.push(e);
      } catch {
        // a torn last line
      }
    }
    return entries;
  }

  /**
   * Keeps only entries from `sinceMs` on (older ones are in anvil's saved state for sure). Runs
   * between appends, and the next append opens the new file: a handle kept open across the
   * rename would append to the replaced file, which no replay ever reads.
   */
  async compact(sinceMs: number): Promise<void> {
    const run = this.tail.then(async () => {
      if (this.handle) await (await this.handle).close();
      this.handle = null;
      const kept = this.read().filter((e) => e.t >= sinceMs);
      const tmp = `${this.path}.tmp`;
      writeFileSync(tmp, kept.map((e) => JSON.stringify(e) + '\n').join(''));
      renameSync(tmp, this.path);
    });
    this.tail = run.catch(() => undefined);
    return run;
  }

  async close(): Promise<void> {
    await this.tail;
    if (this.handle) await (await this.handle).close();
    this.handle = null;
  }
}

/** The signed transactions a JSON-RPC body (one call or a batch) submits. */
export function rawTransactionsIn(body: string): Hex[] {
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    return [];
  }
  const calls = Array.isArray(message) ? message : [message];
  const raws: Hex[] = [];
  for (const c of calls) {
    const call = c as { method?: unknown; params?: unknown[] } | null;
    if (call?.method === 'eth_sendRawTransaction' && typeof call.params?.[0] === 'string') raws.push(call.params[0] as Hex);
  }
  return raws;
}

export class RpcPortInUse extends Error {}

/**
 * Listens on `host:port` and forwards every request to anvil at `upstreamPort`, journaling
 * signed transactions first. Binding fails loudly when the port is taken (another devnet).
 */
export async function startJournaledRpc(options: {
  host: string;
  port: number;
  upstreamPort: number;
  journal: TransactionJournal | null;
}): Promise<Server> {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const server = createServer((req, res) => void forward(req, res));
  server.keepAliveTimeout = 5_000;

  async function forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const raws = options.journal ? rawTransactionsIn(body.toString('utf8')) : [];
    try {
      if (raws.length > 0) await options.journal!.append(raws);
    } catch (e) {
      // Not journaled, not sent: the caller sees a failed send and nothing reached the chain.
      res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `devnet journal: ${(e as Error).message}` }));
      return;
    }
    const upstream = request(
      {
        host: '127.0.0.1',
        port: options.upstreamPort,
        method: req.method,
        path: req.url,
        agent,
        headers: { 'content-type': req.headers['content-type'] ?? 'application/json', 'content-length': body.length },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, { 'content-type': answer.headers['content-type'] ?? 'application/json' });
        answer.pipe(res);
      },
    );
    upstream.on('error', (e) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: `devnet: ${e.message}` }));
    });
    upstream.end(body);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => reject(e.code === 'EADDRINUSE' ? new RpcPortInUse(String(options.port)) : e));
    server.listen({ host: options.host, port: options.port, exclusive: true }, () => resolve());
  });
  server.on('close', () => agent.destroy());
  return server;
}

/** tsx's ESM register API as a file URL (its package's `./esm/api` import entry). */
function tsxEsmApi(): string {
  const manifest = createRequire(import.meta.url).resolve('tsx/package.json');
  const exports = (JSON.parse(readFileSync(manifest, 'utf8')) as { exports: Record<string, { import: { default: string } }> }).exports;
  return pathToFileURL(join(dirname(manifest), exports['./esm/api']!.import.default)).href;
}

/** A journaling proxy running on a thread of its own (startJournaledRpcThread). */
export interface JournaledRpc {
  /** Compacts its journal between two appends (see TransactionJournal.compact). */
  compact(sinceMs: number): Promise<void>;
  /** Stops listening, drops open connections, closes the journal, ends the thread. */
  close(): Promise<void>;
}

export interface JournaledRpcThreadOptions {
  host: string;
  port: number;
  upstreamPort: number;
  /** The journal file; null: forward only. */
  journalPath: string | null;
}

/** Messages between the proxy's thread and its owner. */
type RpcThreadAsk = { kind: 'compact'; sinceMs: number } | { kind: 'close' };
export type ToRpcThread = RpcThreadAsk & { id: number };
export type FromRpcThread = { kind: 'listening' } | { kind: 'failed'; portInUse: boolean; message: string } | { kind: 'done'; id: number; error?: string };

/**
 * The proxy on a worker thread: every RPC call of the service and of anyone else using the devnet
 * passes through it, and on the service's own thread it took a fifth of a paid request's CPU
 * (parsing, forwarding, journaling — docs/performance.md). The thread owns the journal's appends; the
 * devnet still reads the file (replay), and asks the thread to compact it.
 */
export function startJournaledRpcThread(options: JournaledRpcThreadOptions): Promise<JournaledRpc> {
  // Compiled (dist/, docs/decisions/0037-compiled-build-for-production.md), the thread loads its
  // compiled module. Run from source, it runs TypeScript as this process does: tsx's loader,
  // registered on the thread itself (loader hooks of the main thread do not reach workers on Node 20).
  const compiled = import.meta.url.endsWith('.js');
  const entry = new URL(compiled ? './journaled-rpc-thread.js' : './journaled-rpc-thread.ts', import.meta.url);
  const worker = compiled
    ? new Worker(entry, { workerData: options })
    : new Worker(`import(${JSON.stringify(tsxEsmApi())}).then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}); })`, { eval: true, workerData: options });
  let next = 0;
  const waiting = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();
  const ask = (message: RpcThreadAsk): Promise<void> =>
    new Promise((resolve, reject) => {
      const id = ++next;
      waiting.set(id, { resolve, reject });
      worker.postMessage({ ...message, id });
    });
  const gone = (error: Error) => {
    for (const w of waiting.values()) w.reject(error);
    waiting.clear();
  };
  worker.on('message', (m: FromRpcThread) => {
    if (m.kind !== 'done') return;
    const w = waiting.get(m.id);
    waiting.delete(m.id);
    if (m.error === undefined) w?.resolve();
    else w?.reject(new Error(m.error));
  });
  worker.on('error', (e) => gone(e));
  worker.on('exit', () => gone(new Error('the devnet RPC thread has exited')));
  return new Promise((resolve, reject) => {
    const started = (m: FromRpcThread) => {
      if (m.kind === 'listening') {
        worker.off('message', started);
        resolve({
          compact: (sinceMs) => ask({ kind: 'compact', sinceMs }),
          close: async () => {
            await ask({ kind: 'close' }).catch(() => undefined);
            await worker.terminate();
          },
        });
      } else if (m.kind === 'failed') {
        worker.off('message', started);
        void worker.terminate();
        reject(m.portInUse ? new RpcPortInUse(String(options.port)) : new Error(m.message));
      }
    };
    worker.on('message', started);
    worker.once('error', reject);
  });
}
