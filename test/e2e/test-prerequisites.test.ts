/**
 * The tests' own prerequisites (README "Tests"): without PostgreSQL and Redis, `npm test` stops in
 * one line that says what is missing and what to run instead, and `npm run test:no-services`
 * (vitest's mode `no-services`) runs the rest, reporting the cases that need them as skipped.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { freePorts } from '../support/free-ports.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** vitest on some files, with PostgreSQL and Redis pointed where nothing listens. */
async function vitest(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const [pg, redis] = [await freePorts(1), await freePorts(1)];
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: `postgres://postgres@127.0.0.1:${pg}/test`, REDIS_URL: `redis://127.0.0.1:${redis}`, NO_COLOR: '1' };
  delete env.TEST_SERVICES;
  delete env.VITEST; // a run of its own, not a worker of this one
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr: stderr.replace(/^npm warn .*\n/gm, '') }));
  });
}

describe('the tests without PostgreSQL and Redis', () => {
  it('npm test stops before any test in one line naming both and the command that runs the rest', async () => {
    const run = await vitest(['test/domain/money.test.ts']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^The tests need PostgreSQL at 127\.0\.0\.1:\d+ \(DATABASE_URL\) and Redis at 127\.0\.0\.1:\d+ \(REDIS_URL\), and nothing answers there — start them, or run `npm run test:no-services` for everything that does not need them\.\n$/,
    );
    expect(run.stdout).not.toContain('money.test.ts');
  }, 60_000);

  it('npm test checks them first, in a second, naming both when one of them is missing', async () => {
    const scripts = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.test).toMatch(/^tsx scripts\/check-services\.ts && npm run lint/);
    const pg = await freePorts(1);
    const started = Date.now();
    const run = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: `postgres://postgres@127.0.0.1:${pg}/test` };
      delete env.REDIS_URL; // the machine's own Redis, which answers
      const child = spawn(join(root, 'node_modules', '.bin', 'tsx'), ['scripts/check-services.ts'], { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('exit', (code) => resolve({ code, stderr }));
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `The tests need PostgreSQL at 127.0.0.1:${pg} (DATABASE_URL) and Redis at 127.0.0.1:6379 (REDIS_URL), and PostgreSQL does not answer — start it, or run \`npm run test:no-services\` for everything that does not need them.\n`,
    );
    // The check waits at most its 1 s connect timeout, not the system's (minutes); the rest is tsx
    // starting, which a loaded machine slows down — hence the slack.
    expect(Date.now() - started).toBeLessThan(30_000);
  }, 60_000);

  it('the no-services mode runs what does not need them and reports the rest as skipped', async () => {
    const run = await vitest(['--mode', 'no-services', 'test/contract/redis.test.ts', 'test/adapters/rate-limit/rate-limiters.test.ts']);
    expect(run.stderr).not.toMatch(/ECONNREFUSED|The tests need/);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Tests +1 passed \| 5 skipped \(6\)/);
  }, 60_000);
});
