/**
 * `npm run bench:start`: the service started as `npm start` runs it (tsx compiling src/ on the fly)
 * against the compiled build (`npm run build`, then `node dist/main.js`), in interleaved rounds on
 * the embedded devnet with a fresh DATA_DIR each: time from spawn to "listening", and the resident
 * memory of the service's own processes (anvil excluded) once started and after one `npm run demo`.
 * Medians; the figures are in docs/decisions/0037-compiled-build-for-production.md.
 *
 *   npm run build && npm run bench:start            3 rounds
 *   npm run bench:start -- --rounds=5
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { commandLine, wholeNumber } from '../scripts/command-line.js';
import { freePorts } from '../test/support/free-ports.js';

const USAGE = 'usage: npm run bench:start -- [--rounds=<n>]   (after npm run build; 3 rounds by default)';
const { values } = commandLine(USAGE, { options: { rounds: { type: 'string' } } });
const rounds = wholeNumber(USAGE, '--rounds', values.rounds, 3);
const MODES = {
  tsx: [join('node_modules', 'tsx', 'dist', 'cli.mjs'), join('src', 'main.ts')],
  dist: [join('dist', 'main.js')],
} as const;
type Mode = keyof typeof MODES;

/** Resident memory (MiB) of every process in the group but anvil. */
function serviceRssMiB(pgid: number): number {
  const rows = execFileSync('ps', ['-o', 'rss=,comm=', '-g', String(pgid)], { encoding: 'utf8' }).trim().split('\n');
  const kib = rows.map((r) => r.trim().split(/\s+/)).filter(([, comm]) => comm !== 'anvil').reduce((sum, [rss]) => sum + Number(rss), 0);
  return Math.round(kib / 1024);
}

function runDemo(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join('node_modules', 'tsx', 'dist', 'cli.mjs'), join('scripts', 'demo.ts')], {
      env: { ...process.env, PORT: String(port), BASE_URL: undefined },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`demo failed: ${err}`))));
  });
}

async function once(mode: Mode): Promise<{ startMs: number; rssStarted: number; rssAfterDemo: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), `bench-start-${mode}-`));
  const [port, devnetPort] = [await freePorts(1), await freePorts()];
  const started = performance.now();
  const child = spawn(process.execPath, [...MODES[mode]], {
    env: { ...process.env, PORT: String(port), DEVNET_PORT: String(devnetPort), DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  try {
    await new Promise<void>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('listening on')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`${mode} exited with ${code}`)));
    });
    const startMs = performance.now() - started;
    await new Promise((r) => setTimeout(r, 3_000)); // the workers' first passes
    const rssStarted = serviceRssMiB(child.pid!);
    await runDemo(port);
    const rssAfterDemo = serviceRssMiB(child.pid!);
    return { startMs, rssStarted, rssAfterDemo };
  } finally {
    process.kill(-child.pid!, 'SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

if (!existsSync(join('dist', 'main.js'))) {
  console.error('bench:start: no dist/main.js — run `npm run build` first');
  process.exit(1);
}
const results: Record<Mode, { startMs: number; rssStarted: number; rssAfterDemo: number }[]> = { tsx: [], dist: [] };
for (let i = 0; i < rounds; i++) {
  for (const mode of ['tsx', 'dist'] as const) results[mode].push(await once(mode));
}
console.log(`${rounds} rounds, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}, ${process.version}`);
console.log('mode   start to listening   RSS started   RSS after one demo');
for (const mode of ['tsx', 'dist'] as const) {
  const r = results[mode];
  console.log(
    `${mode.padEnd(6)} ${(median(r.map((x) => x.startMs)) / 1000).toFixed(2).padStart(8)} s ${String(median(r.map((x) => x.rssStarted))).padStart(14)} MiB ${String(median(r.map((x) => x.rssAfterDemo))).padStart(12)} MiB`,
  );
}
