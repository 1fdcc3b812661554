/**
 * The lock that keeps one instance per DATA_DIR (#23.4): a second holder is refused and told who
 * holds it, a graceful release lets the next one in, and a holder killed with kill -9 leaves a
 * lock file behind that the next start takes over at once.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DataDirInUse, DataDirLock, LOCK_FILE } from '../../src/bootstrap/data-dir-lock.js';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'data-dir-lock-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const refusal = (dir: string) =>
  DataDirLock.acquire(dir).then(
    async (lock) => (await lock.release(), null),
    (e: unknown) => e,
  );

describe('DataDirLock', () => {
  it('refuses a second holder, naming the holder, until the first releases it', async () => {
    const dir = tempDir();
    const first = await DataDirLock.acquire(dir);
    const e = await refusal(dir);
    expect(e).toBeInstanceOf(DataDirInUse);
    expect((e as DataDirInUse).dataDir).toBe(dir);
    if (process.platform === 'linux') expect((e as DataDirInUse).holderPid).toBe(process.pid);
    await first.release();
    const next = await DataDirLock.acquire(dir);
    await next.release();
  });

  it('creates a missing data directory', async () => {
    const dir = join(tempDir(), 'a', 'b');
    const lock = await DataDirLock.acquire(dir);
    expect(existsSync(join(dir, LOCK_FILE))).toBe(true);
    await lock.release();
  });

  it('a holder killed with kill -9 leaves its lock file, and the next start takes the lock over', async () => {
    const dir = tempDir();
    const holder = spawn(process.execPath, ['--import', 'tsx', join('test', 'support', 'hold-data-dir-lock.ts'), dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise((r) => holder.once('exit', r));
    await new Promise<void>((resolve, reject) => {
      holder.stdout!.on('data', (d: Buffer) => d.toString().includes('held') && resolve());
      holder.once('exit', (code) => reject(new Error(`the holder exited with ${code}`)));
    });
    const e = await refusal(dir);
    expect(e).toBeInstanceOf(DataDirInUse);
    if (process.platform === 'linux') expect((e as DataDirInUse).holderPid).toBe(holder.pid);

    holder.kill('SIGKILL');
    await exited;
    expect(existsSync(join(dir, LOCK_FILE))).toBe(true);
    const next = await DataDirLock.acquire(dir);
    expect(await refusal(dir)).toBeInstanceOf(DataDirInUse);
    await next.release();
  }, 30_000);
});
