/**
 * Whether the tests' PostgreSQL and Redis answer, and the one line that says what to do when they
 * do not: run first by `npm test` (scripts/check-services.ts), before lint and type check, and
 * again by vitest's global setup, so a bare `vitest run` stops the same way.
 */
import { connect } from 'node:net';
import { POSTGRES_URL, REDIS_URL } from './service-urls.js';

/** Whether something accepts a TCP connection at the URL's host and port within a second. */
function answers(url: string, defaultPort: number): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname.replace(/^\[|\]$/g, '') || '127.0.0.1', port: Number(port) || defaultPort, timeout: 1_000 });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
}

/** null when both answer; otherwise the line naming both services and which one is missing. */
export async function servicesProblem(): Promise<string | null> {
  const [postgres, redis] = await Promise.all([answers(POSTGRES_URL, 5432), answers(REDIS_URL, 6379)]);
  if (postgres && redis) return null;
  const need = `PostgreSQL at ${new URL(POSTGRES_URL).host} (DATABASE_URL) and Redis at ${new URL(REDIS_URL).host} (REDIS_URL)`;
  const rest = 'or run `npm run test:no-services` for everything that does not need them.';
  if (!postgres && !redis) return `The tests need ${need}, and nothing answers there — start them, ${rest}`;
  return `The tests need ${need}, and ${postgres ? 'Redis' : 'PostgreSQL'} does not answer — start it, ${rest}`;
}
