/**
 * The benchmarks' and scripts' command lines are read strictly (node:util parseArgs,
 * scripts/command-line.ts): a mistyped flag stops the command with its usage before it does
 * anything — `npm run bench -- --quik` once ran the full seven-minute bench with the defaults.
 * Only refusals and --help are run here: the benchmarks themselves never are.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** `tsx <args>` in the repository; killed after 30 s (a command that does not refuse has started its work). */
function tsx(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), ...args], { cwd: root, timeout: 30_000, killSignal: 'SIGKILL' }, (_err, stdout, stderr) =>
      resolve({ code: child.exitCode, stdout, stderr }),
    );
  });
}

describe('command lines', () => {
  it.each([
    [['bench/run.ts', '--quik'], "Unknown option '--quik'", 'usage: npm run bench -- [--quick]'],
    [['bench/run.ts', '--only=sqlit'], '--only: no part named "sqlit"', 'usage: npm run bench -- [--quick]'],
    [['bench/run.ts', 'quick'], "Unexpected argument 'quick'", 'usage: npm run bench -- [--quick]'],
    [['bench/run.ts', '--batch-deposit-calls=0'], '--batch-deposit-calls must be a whole number of at least 1', 'usage: npm run bench -- [--quick]'],
    [['bench/start.ts', '--rounds=x'], '--rounds must be a whole number', 'usage: npm run bench:start'],
    [['bench/db.ts', '--quick'], "Unknown option '--quick'", 'usage: npm run bench:db'],
    [['bench/profile-top.ts', 'a.cpuprofile', '25', 'extra'], 'unexpected argument "extra"', 'usage: tsx bench/profile-top.ts'],
    [['scripts/build-web.ts', 'a', 'b'], 'one directory at most', 'usage: npm run build:web'],
  ])('%j is refused with its usage before anything runs (exit 2)', async (args, message, usage) => {
    const run = await tsx(...args);
    expect(run).toMatchObject({ code: 2, stdout: '' });
    expect(run.stderr).toContain(message);
    expect(run.stderr).toContain(usage);
  }, 60_000);

  it('--help prints the usage and runs nothing', async () => {
    const run = await tsx('bench/run.ts', '--help');
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toBe('usage: npm run bench -- [--quick] [--profile] [--soak] [--paid-only] [--no-counts] [--batch-deposit-calls=<n>] [--only=sqlite,postgresql,db,memory]\n');
  }, 60_000);
});
