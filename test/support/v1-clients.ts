/**
 * The x402 v1 clients (x402-fetch, x402-axios, x402, axios) live in a package of their own,
 * test/v1-clients (decision 0069): their wallet stack stays out of the root install. This makes
 * sure its node_modules matches its lockfile — `npm ci` there when the lockfile's hash differs
 * from the stamp the last install left, nothing otherwise. Run by `npm test` before the type
 * check (scripts/v1-clients.ts) and again by vitest's global setup, so a bare `vitest run` of a
 * v1 test installs them too.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const V1_CLIENTS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'v1-clients');
const STAMP = join(V1_CLIENTS_DIR, 'node_modules', '.lock-sha256');

/** sha256 of the package's manifest and lockfile: `npm ci` installs exactly what these two say. */
function lockHash(): string {
  const hash = createHash('sha256');
  for (const file of ['package.json', 'package-lock.json']) hash.update(readFileSync(join(V1_CLIENTS_DIR, file)));
  return hash.digest('hex');
}

/** Installs test/v1-clients when its node_modules is missing or was made from another lockfile; true when it installed. */
export function ensureV1Clients(): boolean {
  const wanted = lockHash();
  if (existsSync(STAMP) && readFileSync(STAMP, 'utf8').trim() === wanted) return false;
  process.stderr.write('Installing the x402 v1 clients the tests pay with (test/v1-clients, npm ci) …\n');
  // --ignore-scripts: the stack's install scripts (keccak, bufferutil, utf-8-validate) only look
  // for prebuilt binaries, which these packages load at run time anyway (or fall back to JS).
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const args = ['ci', '--prefix', V1_CLIENTS_DIR, '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'];
  const run = spawnSync(npm, args, { stdio: ['ignore', 'inherit', 'inherit'], shell: process.platform === 'win32' });
  if (run.status !== 0) {
    throw new Error(`npm ci --prefix test/v1-clients failed (${run.error?.message ?? `exit ${run.status ?? run.signal}`}): the x402 v1 tests cannot run without it`);
  }
  writeFileSync(STAMP, `${wanted}\n`);
  return true;
}
