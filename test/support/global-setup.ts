/**
 * Before any test file: PostgreSQL and Redis must answer (README "Tests"). Without them the run
 * stops with one line saying what is missing and how to run the rest, instead of dozens of
 * ECONNREFUSED stack traces. `npm run test:no-services` skips this check and those tests.
 */
import { connect } from 'node:net';
import type { TestProject } from 'vitest/node';
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

export default async function setup(project: TestProject): Promise<void> {
  if ((project.config.env?.TEST_SERVICES ?? process.env.TEST_SERVICES) === 'none') return;
  const where = (url: string) => new URL(url).host;
  const missing = [
    ...((await answers(POSTGRES_URL, 5432)) ? [] : [`PostgreSQL at ${where(POSTGRES_URL)} (DATABASE_URL)`]),
    ...((await answers(REDIS_URL, 6379)) ? [] : [`Redis at ${where(REDIS_URL)} (REDIS_URL)`]),
  ];
  if (missing.length === 0) return;
  // One line and out: a thrown error here would be printed with vitest's stack frames.
  process.stderr.write(`The tests need ${missing.join(' and ')}, and nothing answers there — start them, or run \`npm run test:no-services\` for everything that does not need them.\n`);
  process.exit(1);
}
