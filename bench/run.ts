/**
 * `npm run bench`: the speed targets of docs/performance.md as ratios against baselines measured in the
 * same run, in interleaved rounds (machine drift hits both sides alike), medians reported.
 * Never timed tests: these numbers live here and in docs/performance.md only.
 *
 *   npm run bench                  full run (≈7 minutes)
 *   npm run bench -- --quick       fewer, shorter rounds (under 3 minutes)
 *   npm run bench -- --profile     also writes the service's --cpu-prof to bench/results/profiles
 *   npm run bench -- --only=sqlite,postgresql,db,memory
 *   npm run bench -- --soak        also the memory targets: RSS over 50,000 trades and over a
 *                                  3-minute paid soak of the SQLite service (≈ 5 minutes more)
 *   npm run bench -- --paid-only   only the paid rounds (with --profile: a profile of the paid path)
 *   npm run bench -- --no-counts   without bench/instrument.ts in the measured processes
 *   npm run bench -- --help        the usage line; an unknown flag (`--quik`) stops with it, runs nothing
 *
 * Table 1, the service as `npm start` runs it (SQLite, embedded devnet, in-process facilitator,
 * workers on, rate limit off), and again on PostgreSQL:
 *   GET /tokens/:id / bare Koa + @koa/router serving the same JSON       target ≥ 0.8
 *   paid token_buy_usd $0.01 / @x402/express on an empty handler          target ≥ 1.0, max ≤ 1 s
 *   GET /health / GET /tokens/:id on the same service                     target ≥ 1.0
 *   trades/s through the use case / raw driver insert tx (bench/db.ts)    target ≥ 0.35 SQLite, ≥ 0.5 PostgreSQL
 * Table 2, over the in-memory stores and the fake facilitator (bench/memory.ts).
 * Everything is written to bench/results/latest.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { commandLine, usageError } from '../scripts/command-line.js';
import { dropSchema, POSTGRES_URL } from '../test/support/postgres.js';
import { benchDb, soakTrades, type DbFigure } from './db.js';
import type { LoadResult } from './load.js';
import { benchMemory, type MemoryRow } from './memory.js';
import { benchReal, lastHalfGrowth, type Figure, type RealResult } from './real.js';
import { medianWork, workLine } from './work.js';

const PARTS = ['sqlite', 'postgresql', 'db', 'memory'];
const USAGE = `usage: npm run bench -- [--quick] [--profile] [--soak] [--paid-only] [--no-counts] [--only=${PARTS.join(',')}]`;
const { values } = commandLine(USAGE, {
  options: {
    quick: { type: 'boolean' },
    profile: { type: 'boolean' },
    soak: { type: 'boolean' },
    'paid-only': { type: 'boolean' },
    'no-counts': { type: 'boolean' },
    only: { type: 'string' },
  },
});
const quick = values.quick === true;
const profile = values.profile === true;
const soak = values.soak === true;
/** Only the paid rounds (no reads), and with or without the work counts (bench/instrument.ts). */
const paidOnly = values['paid-only'] === true;
const counts = values['no-counts'] !== true;
const only = values.only?.split(',') ?? PARTS;
const unknownParts = only.filter((part) => !PARTS.includes(part));
if (unknownParts.length > 0) usageError(USAGE, `--only: no part named ${unknownParts.map((p) => `"${p}"`).join(', ')} (the parts: ${PARTS.join(', ')})`);
const plan = quick
  ? { rounds: 3, readMs: 1_000, paidMs: 2_500, dbRounds: 3, dbMs: 1_000, memoryRounds: 1, memoryMs: 1_000 }
  : { rounds: 5, readMs: 3_000, paidMs: 6_000, dbRounds: 5, dbMs: 3_000, memoryRounds: 3, memoryMs: 3_000 };
const resultsDir = resolve('bench', 'results');
const profileDir = profile ? join(resultsDir, 'profiles') : undefined;
mkdirSync(profileDir ?? resultsDir, { recursive: true });

const log = (line: string) => console.log(line);
const started = Date.now();
const loadBefore = loadavg();
const real: RealResult[] = [];
let db: { sqlite: DbFigure; postgresql: DbFigure } | null = null;
let memory: MemoryRow[] = [];

if (only.includes('sqlite'))
  real.push(await benchReal({ label: 'sqlite', rounds: plan.rounds, readMs: plan.readMs, paidMs: plan.paidMs, profileDir, paidOnly, counts, log, ...(soak ? { soakMs: 180_000 } : {}) }));
if (only.includes('postgresql')) {
  const schema = `bench_service_${randomBytes(4).toString('hex')}`;
  try {
    real.push(
      await benchReal({ label: 'postgresql', databaseUrl: `${POSTGRES_URL}?schema=${schema}`, rounds: plan.rounds, readMs: plan.readMs, paidMs: plan.paidMs, profileDir, paidOnly, counts, log }),
    );
  } finally {
    await dropSchema(schema);
  }
}
if (only.includes('db')) db = await benchDb({ rounds: plan.dbRounds, durationMs: plan.dbMs, log });
if (only.includes('memory')) memory = await benchMemory({ rounds: plan.memoryRounds, durationMs: plan.memoryMs, log });
let trades: { samplesMiB: number[]; seconds: number; lastHalfGrowth: number } | null = null;
if (soak) {
  const t = await soakTrades(50_000, 5_000);
  trades = { ...t, lastHalfGrowth: lastHalfGrowth(t.samplesMiB) };
  log(`[soak] 50,000 trades in ${t.seconds.toFixed(0)} s: RSS ${t.samplesMiB.map((m) => m.toFixed(0)).join(' ')} MiB, last half ${(trades.lastHalfGrowth * 100).toFixed(1)}%`);
}

// ---- report -------------------------------------------------------------------------------
const medianOf = (rs: LoadResult[], f: (r: LoadResult) => number) => {
  const s = rs.map(f).sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};
const worst = (rs: LoadResult[]) => Math.max(...rs.map((r) => r.latency.max));
const side = (rs: LoadResult[]) => ({
  rps: medianOf(rs, (r) => r.rps),
  p50: medianOf(rs, (r) => r.latency.p50),
  p99: medianOf(rs, (r) => r.latency.p99),
  max: worst(rs),
  errors: rs.reduce((n, r) => n + r.errors, 0),
});
const summary = (f: Figure) => ({ ratio: f.ratio, ratios: f.ratios, ours: side(f.ours), baseline: side(f.baseline) });

interface Row {
  figure: string;
  config: string;
  ours: string;
  baseline: string;
  ratio: number;
  target: string;
  met: boolean;
}
const rows: Row[] = [];
const rate = (s: ReturnType<typeof side>) => `${s.rps.toFixed(0)}/s (p50 ${s.p50.toFixed(1)}, p99 ${s.p99.toFixed(1)}, max ${s.max.toFixed(0)} ms${s.errors ? `, ${s.errors} errors` : ''})`;
for (const r of real) {
  const read = summary(r.read);
  const health = summary(r.health);
  const paid = summary(r.paid);
  if (r.read.ours.length) rows.push({ figure: 'GET /tokens/:id vs bare Koa', config: r.label, ours: rate(read.ours), baseline: rate(read.baseline), ratio: read.ratio, target: '≥ 0.8', met: read.ratio >= 0.8 });
  rows.push({
    figure: 'paid token_buy_usd $0.01 ×8 vs @x402/express',
    config: r.label,
    ours: rate(paid.ours),
    baseline: rate(paid.baseline),
    ratio: paid.ratio,
    target: '≥ 1.0, max ≤ 1000 ms',
    met: paid.ratio >= 1 && paid.ours.max <= 1_000 && paid.ours.errors === 0,
  });
  if (r.health.ours.length) rows.push({ figure: 'GET /health vs GET /tokens/:id', config: r.label, ours: rate(health.ours), baseline: rate(health.baseline), ratio: health.ratio, target: '≥ 1.0', met: health.ratio >= 1 });
}
if (db) {
  for (const [label, f] of [['sqlite', db.sqlite], ['postgresql', db.postgresql]] as const) {
    const m = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const target = label === 'sqlite' ? 0.35 : 0.5;
    rows.push({ figure: 'bench:db trades/s vs raw insert tx', config: label, ours: `${m(f.tradesPerSecond).toFixed(0)} trades/s`, baseline: `${m(f.rawPerSecond).toFixed(0)} tx/s`, ratio: f.ratio, target: `≥ ${target}`, met: f.ratio >= target });
  }
}

const loadAfter = loadavg();
const table = [
  '| figure | config | ours (median of rounds) | baseline | ratio | target | met |',
  '|---|---|---|---|---|---|---|',
  ...rows.map((r) => `| ${r.figure} | ${r.config} | ${r.ours} | ${r.baseline} | ${r.ratio.toFixed(2)}× | ${r.target} | ${r.met ? 'yes' : 'no'} |`),
];
const memoryTable = ['| in-memory figure | ratio | target |', '|---|---|---|', ...memory.map((m) => `| ${m.name} | ${m.value.toFixed(3)} | ${m.target} |`)];
console.log(`\n${table.join('\n')}\n`);
if (memory.length) console.log(`${memoryTable.join('\n')}\n`);
// The counts beside the ratios: they do not move with the machine's noise (bench/work.ts).
const medianOfList = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
/** Medians over rounds, per process, and of the rounds' totals (ms per paid request). */
const cpuMedians = (xs: Record<string, number>[]) => {
  const keys = [...new Set(xs.flatMap((c) => Object.keys(c)))];
  const parts = keys.map((k) => `${k} ${medianOfList(xs.map((c) => c[k] ?? 0)).toFixed(1)}`).join(', ');
  return `${medianOfList(xs.map((c) => Object.values(c).reduce((a, b) => a + b, 0))).toFixed(1)} ms (${parts})`;
};
for (const r of real) {
  console.log(`paid request (${r.label}), medians of the rounds:`);
  console.log(`  CPU, all processes: ours ${cpuMedians(r.paidCpu.ours)}`);
  console.log(`                      @x402/express ${cpuMedians(r.paidCpu.baseline)}`);
  if (!counts) continue;
  console.log(`  work, ours, all:            ${workLine(medianWork(r.paidWork.ours.map((w) => w.total)))}`);
  console.log(`  work, ours, in the request: ${workLine(medianWork(r.paidWork.ours.map((w) => w.request)))}`);
  console.log(`  work, @x402/express:        ${workLine(medianWork(r.paidWork.baseline))}`);
}
for (const r of real) console.log(`service RSS (${r.label}): ${r.rssMiB.start.toFixed(0)} MiB after start, ${r.rssMiB.end.toFixed(0)} MiB after the rounds`);
for (const r of real) if (r.soak) console.log(`memory: 3-minute paid soak (${r.label}) RSS grew ${(r.soak.lastHalfGrowth * 100).toFixed(1)}% in its last half   target ≤ 10%`);
if (trades) console.log(`memory: 50,000 trades, RSS grew ${(trades.lastHalfGrowth * 100).toFixed(1)}% in the last half   target ≤ 10%`);
console.log(`load average before ${loadBefore.map((l) => l.toFixed(1)).join(' ')}, after ${loadAfter.map((l) => l.toFixed(1)).join(' ')} on ${cpus().length} cores`);
console.log(`${((Date.now() - started) / 1000).toFixed(0)} s`);

writeFileSync(
  join(resultsDir, 'latest.json'),
  JSON.stringify(
    {
      at: new Date().toISOString(),
      mode: quick ? 'quick' : 'full',
      plan,
      machine: { cores: cpus().length, cpu: cpus()[0]?.model, node: process.version, loadBefore, loadAfter },
      seconds: (Date.now() - started) / 1000,
      rows,
      service: real.map((r) => ({
        config: r.label,
        read: summary(r.read),
        paid: summary(r.paid),
        paidCpuMsPerRequest: r.paidCpu,
        paidWorkPerRequest: { ours: medianWork(r.paidWork.ours.map((w) => w.total)), oursInRequest: medianWork(r.paidWork.ours.map((w) => w.request)), baseline: medianWork(r.paidWork.baseline), rounds: r.paidWork },
        health: summary(r.health), rssMiB: r.rssMiB })),
      db,
      memory,
      soak: soak ? { trades, paid: real.map((r) => (r.soak ? { config: r.label, ...r.soak } : null)).filter(Boolean) } : null,
    },
    null,
    2,
  ) + '\n',
);
console.log(`written ${join('bench', 'results', 'latest.json')}`);
