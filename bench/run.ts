/**
 * `npm run bench`: the speed targets of docs/performance.md as ratios against baselines measured in the
 * same run, in interleaved rounds (machine drift hits both sides alike), medians reported.
 * Never timed tests: these numbers live here and in docs/performance.md only.
 *
 *   npm run bench                  full run (≈ 11 minutes on an idle machine)
 *   npm run bench -- --quick       fewer, shorter rounds (≈ 4 minutes on an idle machine)
 *   npm run bench -- --profile     also writes the service's --cpu-prof to bench/results/profiles
 *   npm run bench -- --only=sqlite,postgresql,db,memory
 *   npm run bench -- --soak        also the memory targets: RSS over 50,000 trades and over a
 *                                  3-minute paid soak of the SQLite service (≈ 5 minutes more)
 *   npm run bench -- --paid-only   only the paid rounds (with --profile: a profile of the paid path)
 *   npm run bench -- --no-counts   without bench/instrument.ts in the measured processes
 *   npm run bench -- --batch-deposit-calls=10
 *                                  batch-settlement clients deposit 10 calls' worth at a time (the
 *                                  official client's default, the offer's minDeposit); default 100
 *   npm run bench -- --help        the usage line; an unknown flag (`--quik`) stops with it, runs nothing
 *
 * Table 1, the service as `npm start` runs it (SQLite, embedded devnet, in-process facilitator,
 * workers on, rate limit off), and again on PostgreSQL:
 *   GET /tokens/:id / bare Koa + @koa/router serving the same JSON       target ≥ 0.8
 *   paid token_buy_usd $0.01 / @x402/express on an empty handler          target ≥ 1.0, max ≤ 1 s
 *   paid ×1 (sequential) by batch-settlement / by exact (issue 54)        target ≥ 3.0
 *   and beside them, with no targets of their own: exact ×1 and batch-settlement ×1 / @x402/express
 *   ×1, batch-settlement ×8 / exact ×8 and / @x402/express ×8; then a table per database of every
 *   paid side's calls/s, p50/p99, CPU, RPC calls, statements, signatures and gas per paid call
 *   (gas from the devnet's receipts, bench/gas.ts)
 *   GET /health / GET /tokens/:id on the same service                     target ≥ 1.0
 *   trades/s through the use case / raw driver insert tx (bench/db.ts)    target ≥ 0.35 SQLite, ≥ 0.5 PostgreSQL
 * Table 2, over the in-memory stores and the fake facilitator (bench/memory.ts).
 * Everything is written to bench/results/latest.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { commandLine, usageError, wholeNumber } from '../scripts/command-line.js';
import { dropSchema, POSTGRES_URL } from '../test/support/postgres.js';
import { benchDb, soakTrades, type DbFigure } from './db.js';
import { median, type LoadResult } from './load.js';
import { benchMemory, type MemoryRow } from './memory.js';
import { gasOfKinds } from './gas.js';
import { BATCH_DEPOSIT_CALLS, benchReal, lastHalfGrowth, PAID_SIDES, type Figure, type PaidSideKey, type RealResult } from './real.js';
import { medianWork, workLine } from './work.js';

const PARTS = ['sqlite', 'postgresql', 'db', 'memory'];
const USAGE = `usage: npm run bench -- [--quick] [--profile] [--soak] [--paid-only] [--no-counts] [--batch-deposit-calls=<n>] [--only=${PARTS.join(',')}]`;
const { values } = commandLine(USAGE, {
  options: {
    quick: { type: 'boolean' },
    profile: { type: 'boolean' },
    soak: { type: 'boolean' },
    'paid-only': { type: 'boolean' },
    'no-counts': { type: 'boolean' },
    'batch-deposit-calls': { type: 'string' },
    only: { type: 'string' },
  },
});
const quick = values.quick === true;
const profile = values.profile === true;
const soak = values.soak === true;
/** Only the paid rounds (no reads), and with or without the work counts (bench/instrument.ts). */
const paidOnly = values['paid-only'] === true;
const counts = values['no-counts'] !== true;
const batchDepositCalls = wholeNumber(USAGE, '--batch-deposit-calls', values['batch-deposit-calls'], BATCH_DEPOSIT_CALLS);
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
  real.push(await benchReal({ label: 'sqlite', rounds: plan.rounds, readMs: plan.readMs, paidMs: plan.paidMs, profileDir, paidOnly, counts, batchDepositCalls, log, ...(soak ? { soakMs: 180_000 } : {}) }));
if (only.includes('postgresql')) {
  const schema = `bench_service_${randomBytes(4).toString('hex')}`;
  try {
    real.push(
      await benchReal({ label: 'postgresql', databaseUrl: `${POSTGRES_URL}?schema=${schema}`, rounds: plan.rounds, readMs: plan.readMs, paidMs: plan.paidMs, profileDir, paidOnly, counts, batchDepositCalls, log }),
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
  /** null: a figure shown beside the targets, with none of its own. */
  met: boolean | null;
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
  // The paid call by scheme (issue 54): ratios of two sides of the same rounds.
  const sideRatio = (a: PaidSideKey, b: PaidSideKey) => median(r.sides[a].runs.map((x, i) => x.rps / r.sides[b].runs[i]!.rps));
  const sideRate = (k: PaidSideKey) => rate(side(r.sides[k].runs));
  const vs = (figure: string, a: PaidSideKey, b: PaidSideKey, target?: number) => {
    const ratio = sideRatio(a, b);
    rows.push({ figure, config: r.label, ours: sideRate(a), baseline: sideRate(b), ratio, target: target === undefined ? '—' : `≥ ${target.toFixed(1)}`, met: target === undefined ? null : ratio >= target });
  };
  vs('paid ×1 (sequential): batch-settlement vs exact', 'batch1', 'exact1', 3);
  vs('paid ×1 (sequential): exact vs @x402/express', 'exact1', 'official1');
  vs('paid ×1 (sequential): batch-settlement vs @x402/express', 'batch1', 'official1');
  vs('paid ×8: batch-settlement vs exact', 'batch8', 'exact8');
  vs('paid ×8: batch-settlement vs @x402/express', 'batch8', 'official8');
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
  ...rows.map((r) => `| ${r.figure} | ${r.config} | ${r.ours} | ${r.baseline} | ${r.ratio.toFixed(2)}× | ${r.target} | ${r.met === null ? '—' : r.met ? 'yes' : 'no'} |`),
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
// The paid call by scheme: rate, latency, CPU, counted work and gas per paid call, side by side.
const schemeTables = real.map((r) => {
  const calls = (k: PaidSideKey) => r.sides[k].runs.reduce((n, x) => n + x.count - x.errors, 0);
  const gasOf = { official: gasOfKinds(r.gas, 'exact official'), exact: gasOfKinds(r.gas, 'exact ours'), batch: gasOfKinds(r.gas, 'batch ') };
  const callsOf = { official: calls('official8') + calls('official1'), exact: calls('exact8') + calls('exact1'), batch: calls('batch8') + calls('batch1') };
  const gasPerCall = (k: keyof typeof gasOf) => gasOf[k].gas / Math.max(1, callsOf[k]);
  const lines = PAID_SIDES.map((s) => {
    const x = side(r.sides[s.key].runs);
    const cpu = medianOfList(r.sides[s.key].cpu.map((c) => Object.values(c).reduce((a, b) => a + b, 0)));
    const work = medianWork(r.sides[s.key].work.map((w) => (s.server === 'official' ? w.request : w.total)));
    const gasKey = s.server === 'official' ? 'official' : s.scheme;
    return `| ${s.label} | ${x.rps.toFixed(0)}/s | ${x.p50.toFixed(1)} | ${x.p99.toFixed(1)} | ${cpu.toFixed(1)} | ${counts ? work.rpc.toFixed(2) : '—'} | ${counts ? work.db.toFixed(1) : '—'} | ${counts ? `${work.sign.toFixed(2)} / ${work.recover.toFixed(2)}` : '—'} | ${gasPerCall(gasKey).toFixed(0)} |`;
  });
  const kinds = Object.entries(r.gas)
    .filter(([k]) => k !== 'other')
    .map(([k, v]) => `${k}: ${v.txs} tx${v.vouchers ? ` (${v.vouchers} vouchers)` : ''}, ${(v.gas / Math.max(1, v.txs)).toFixed(0)} gas each`)
    .join('; ');
  return {
    config: r.label,
    text: [
      `paid token_buy_usd $0.01 by scheme (${r.label}; medians of the rounds; work and gas per paid call, ours with what the workers did until its deliveries were mined):`,
      '| side | paid calls/s | p50 ms | p99 ms | CPU ms/call, all processes | RPC calls/call | statements/call | ECDSA signs / recoveries | gas/call |',
      '|---|---|---|---|---|---|---|---|---|',
      ...lines,
      `gas, from the receipts of the run's ${Object.values(r.gas).reduce((n, v) => n + v.txs, 0)} transactions: ${kinds}; other (deliveries, …) ${r.gas.other?.txs ?? 0} tx`,
      `calls paid: exact ${callsOf.exact}, batch-settlement ${callsOf.batch} (deposits of ${batchDepositCalls} calls' worth), official ${callsOf.official}; ` +
        `channels ${r.channels.count}, charged ${r.channels.charged}, claimed ${r.channels.claimed} (the contract: ${r.channels.claimedOnChain})${r.channels.refundFailures.length ? `, refunds refused: ${r.channels.refundFailures.length}` : ''}`,
    ].join('\n'),
    gas: r.gas,
    gasPerCall: { exact: gasPerCall('exact'), batch: gasPerCall('batch'), official: gasPerCall('official') },
    calls: callsOf,
  };
});
for (const t of schemeTables) console.log(`\n${t.text}\n`);
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
        sides: Object.fromEntries(PAID_SIDES.map((s) => [s.key, { ...side(r.sides[s.key].runs), rounds: r.sides[s.key] }])),
        gas: schemeTables.find((t) => t.config === r.label),
        channels: { ...r.channels, charged: r.channels.charged.toString(), claimed: r.channels.claimed.toString(), claimedOnChain: r.channels.claimedOnChain.toString() },
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
