/**
 * A small closed-loop load generator: `concurrency` workers send requests back to back for
 * `durationMs`; returns requests per second and the latency distribution (ms) of every request.
 */
import { Agent, request } from 'node:http';

export interface Latency {
  p50: number;
  p99: number;
  max: number;
}

export interface LoadResult {
  rps: number;
  count: number;
  errors: number;
  latency: Latency;
}

export interface LoadOptions {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: (i: number) => string | Promise<string>;
  headersFor?: (i: number) => Record<string, string> | Promise<Record<string, string>>;
  concurrency: number;
  durationMs: number;
  expectStatus?: number;
}

/** The median (mean of the middle two for an even count). */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

export function latencyOf(samples: number[]): Latency {
  if (samples.length === 0) return { p50: 0, p99: 0, max: 0 };
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  return { p50: at(0.5), p99: at(0.99), max: s[s.length - 1]! };
}

/**
 * `concurrency` loops calling `one(i)` back to back until the deadline; a throw or a false
 * answer counts as an error. Each call's wall time is a latency sample.
 */
export async function loadWith(o: { concurrency: number; durationMs: number; one: (i: number) => Promise<boolean> }): Promise<LoadResult> {
  const deadline = Date.now() + o.durationMs;
  const samples: number[] = [];
  let errors = 0;
  let seq = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: o.concurrency }, async () => {
      while (Date.now() < deadline) {
        const t0 = performance.now();
        let ok: boolean;
        try {
          ok = await o.one(seq++);
        } catch {
          ok = false;
        }
        samples.push(performance.now() - t0);
        if (!ok) errors++;
      }
    }),
  );
  const elapsed = performance.now() - started;
  return { rps: (samples.length / elapsed) * 1000, count: samples.length, errors, latency: latencyOf(samples) };
}

/** Plain HTTP requests over keep-alive connections. */
export async function load(o: LoadOptions): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: o.concurrency });
  const url = new URL(o.url);
  try {
    return await loadWith({
      concurrency: o.concurrency,
      durationMs: o.durationMs,
      one: async (i) => {
        const body = o.body ? await o.body(i) : undefined;
        const headers = { ...o.headers, ...(o.headersFor ? await o.headersFor(i) : {}) };
        return new Promise<boolean>((resolve) => {
          const req = request(
            { agent, host: url.hostname, port: url.port, path: url.pathname + url.search, method: o.method ?? 'GET', headers },
            (res) => {
              res.resume();
              res.on('end', () => resolve(o.expectStatus === undefined || res.statusCode === o.expectStatus));
            },
          );
          req.on('error', () => resolve(false));
          req.end(body);
        });
      },
    });
  } finally {
    agent.destroy();
  }
}
