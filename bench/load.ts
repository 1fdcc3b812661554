/**
 * A small closed-loop load generator: `concurrency` workers send requests back to back over
 * keep-alive connections for `durationMs`; returns requests per second.
 */
import { Agent, request } from 'node:http';

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

export async function load(o: LoadOptions): Promise<{ rps: number; count: number; errors: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: o.concurrency });
  const url = new URL(o.url);
  const deadline = Date.now() + o.durationMs;
  let count = 0;
  let errors = 0;
  let seq = 0;
  const one = async () => {
    const i = seq++;
    const body = o.body ? await o.body(i) : undefined;
    const headers = { ...o.headers, ...(o.headersFor ? await o.headersFor(i) : {}) };
    await new Promise<void>((resolve) => {
      const req = request(
        { agent, host: url.hostname, port: url.port, path: url.pathname + url.search, method: o.method ?? 'GET', headers },
        (res) => {
          res.resume();
          res.on('end', () => {
            if (o.expectStatus !== undefined && res.statusCode !== o.expectStatus) errors++;
            count++;
            resolve();
          });
        },
      );
      req.on('error', () => {
        errors++;
        resolve();
      });
      req.end(body);
    });
  };
  const started = Date.now();
  await Promise.all(
    Array.from({ length: o.concurrency }, async () => {
      while (Date.now() < deadline) await one();
    }),
  );
  agent.destroy();
  return { rps: (count / (Date.now() - started)) * 1000, count, errors };
}
