/**
 * The service as people run it — `npm start`: SQLite under DATA_DIR (or PostgreSQL), the
 * embedded devnet, the in-process facilitator, the workers on, the rate limit off — next to its
 * baselines in the same run, in interleaved rounds:
 *
 *   GET /tokens/:id             vs a bare Koa + @koa/router handler serving the same JSON
 *   GET /health                 vs GET /tokens/:id on the same service (a probe costs ≤ a read)
 *   paid token_buy_usd $0.01    vs @x402/express on an empty handler, both paid by 8 concurrent
 *                                  official @x402/fetch clients, both settling on the same devnet
 *                                  through the official facilitator in their own process
 *
 * and the paid call by scheme (issue 54), each side in the same round: the official stack,
 * ours paid by `exact` and ours paid by `batch-settlement` (the official client's
 * BatchSettlementEvmScheme: a deposit, then a voucher per call), 8 clients at once and one
 * client calling back to back (sequential). After the rounds every batch channel is refunded
 * cooperatively, and the gas of every transaction the run mined is read from the devnet's
 * receipts (bench/gas.ts): exact's settlements, batch's deposits, claims, settles and refunds.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, http, toHex, type Hex } from 'viem';
import { CONTRACTS } from '../src/adapters/kit/evm/contracts/artifacts.js';
import { BATCH_SETTLEMENT_CONTRACT } from '../src/adapters/kit/x402/batch-settlement.js';
import { devnetAccount } from '../src/adapters/chain/anvil/devnet-constants.js';
import { freePorts } from '../test/support/free-ports.js';
import { POSTGRES_URL } from '../test/support/postgres.js';
import { devAccount, payingFetch } from '../test/support/x402-client.js';
import { gasByKind, type GasByKind } from './gas.js';
import { load, loadWith, median, type LoadResult } from './load.js';
import { headerTally, noteChannel, payingClients, refundAll, type PayingClient, type Scheme } from './paying-clients.js';
import { backendCpuMs, groupClientPorts, groupCpuMs, startProcess, type BenchProcess } from './processes.js';
import { addWork, NO_WORK, perRequest, workLine, type WorkPerRequest } from './work.js';

export interface RealOptions {
  label: string;
  /** Unset: SQLite under the data dir, as `npm start`. */
  databaseUrl?: string;
  rounds: number;
  readMs: number;
  paidMs: number;
  /** After the rounds: a paid soak of this long, the service's RSS sampled every 5 s. */
  soakMs?: number;
  /** Directory for the service's --cpu-prof output, when profiling. */
  profileDir?: string;
  /** Only the paid figure (no read or health rounds): for profiles and counts of the paid path. */
  paidOnly?: boolean;
  /** Count the work per request (bench/instrument.ts in the service and the baseline); default on. */
  counts?: boolean;
  /** Calls' worth a batch-settlement client deposits at a time (the official client's default: the offer's minDeposit, 10). */
  batchDepositCalls?: number;
  log: (line: string) => void;
}

export interface Figure {
  /** Median over rounds of the per-round ratio ours / baseline. */
  ratio: number;
  ratios: number[];
  ours: LoadResult[];
  baseline: LoadResult[];
}

/** CPU milliseconds per successful paid request, by process, over one side of a paid round. */
export type CpuPerRequest = Record<string, number>;

export interface RealResult {
  label: string;
  read: Figure;
  health: Figure;
  paid: Figure;
  /**
   * Where a paid request's CPU goes, per round: `service` (our node process, which also runs the
   * devnet's RPC proxy for both sides), `anvil`, `baseline` (the @x402/express process), `clients`
   * (this process: the 8 x402 clients signing).
   */
  paidCpu: { ours: CpuPerRequest[]; baseline: CpuPerRequest[] };
  /**
   * Work per paid request, per round (bench/work.ts): ours is the request's own (`request`) plus
   * what it left for the workers until the service was idle again (`after`: the delivery);
   * the baseline's is its process's.
   */
  paidWork: { ours: { request: WorkPerRequest; after: WorkPerRequest; total: WorkPerRequest }[]; baseline: WorkPerRequest[] };
  /** Every paid side of every round (PAID_SIDES), the two above included. */
  sides: Record<PaidSideKey, PaidSideResult>;
  /** Gas of every transaction mined from the first round to the last refund, by kind (bench/gas.ts). */
  gas: GasByKind;
  /** Batch-settlement channels at the end, as the service's books show them (GET /api/channels/:id), after the refunds. */
  channels: { count: number; charged: bigint; claimed: bigint; refundFailures: string[]; claimedOnChain: bigint };
  rssMiB: { start: number; end: number };
  soak?: { samplesMiB: number[]; lastHalfGrowth: number; paid: LoadResult };
}

/**
 * The paid sides of a round, in the order they run: who answers (ours or the official stack), how
 * its clients pay, how many pay at once. The official stack offers exact only.
 */
export const PAID_SIDES = [
  { key: 'official8', server: 'official', scheme: 'exact', concurrency: 8, label: '@x402/express ×8' },
  { key: 'exact8', server: 'ours', scheme: 'exact', concurrency: 8, label: 'ours exact ×8' },
  { key: 'batch8', server: 'ours', scheme: 'batch', concurrency: 8, label: 'ours batch ×8' },
  { key: 'official1', server: 'official', scheme: 'exact', concurrency: 1, label: '@x402/express ×1' },
  { key: 'exact1', server: 'ours', scheme: 'exact', concurrency: 1, label: 'ours exact ×1' },
  { key: 'batch1', server: 'ours', scheme: 'batch', concurrency: 1, label: 'ours batch ×1' },
] as const satisfies readonly { key: string; server: 'ours' | 'official'; scheme: Scheme; concurrency: number; label: string }[];
export type PaidSideKey = (typeof PAID_SIDES)[number]['key'];

export interface PaidSideResult {
  /** One load per round. */
  runs: LoadResult[];
  cpu: CpuPerRequest[];
  /** Per round; the official stack's `after` is nothing (it leaves no work behind). */
  work: { request: WorkPerRequest; after: WorkPerRequest; total: WorkPerRequest }[];
}

/** What a batch-settlement client deposits at a time, in calls' worth, unless told otherwise: a dollar at $0.01 a call, the claims' threshold. */
export const BATCH_DEPOSIT_CALLS = 100;

/** The machine's busy and total CPU time so far (/proc/stat), in clock ticks. */
function machineCpu(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  return { busy: total - (fields[3] ?? 0) - (fields[4] ?? 0), total }; // idle, iowait
}

/**
 * Waits (at most 60 s) until the service's process group spends under a tenth of a core and the
 * whole machine under a fifth of its CPU over a quarter second: the previous round's deliveries
 * sent, and the database server's own after-work (PostgreSQL's checkpoints, autovacuum) done.
 */
async function quiet(p: BenchProcess): Promise<void> {
  const cpu = () => Object.values(groupCpuMs(p.child.pid!)).reduce((a, b) => a + b, 0);
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
    const before = cpu();
    const machine = machineCpu();
    await new Promise((r) => setTimeout(r, 250));
    const now = machineCpu();
    if (cpu() - before < 25 && (now.busy - machine.busy) / Math.max(1, now.total - machine.total) < 0.2) return;
  }
}

/**
 * Waits (at most 60 s) until every delivery named is CONFIRMED (or FAILED): each client's last,
 * sent after (or with) its earlier ones. A few reads of the service, counted with the rest.
 */
async function delivered(p: BenchProcess, deliveryIds: string[]): Promise<void> {
  const left = new Set(deliveryIds);
  for (const deadline = Date.now() + 60_000; left.size > 0 && Date.now() < deadline; ) {
    for (const id of [...left]) {
      const res = await fetch(`${p.url}/api/deliveries/${id}`);
      const state = res.ok ? ((await res.json()) as { data: { state: string } }).data.state : null;
      if (state === 'CONFIRMED' || state === 'FAILED') left.delete(id);
    }
    if (left.size > 0) await new Promise((r) => setTimeout(r, 100));
  }
}

/** Growth over the last half of a series of samples: end ÷ middle − 1. */
export function lastHalfGrowth(samples: number[]): number {
  const mid = samples[Math.floor((samples.length - 1) / 2)]!;
  return samples[samples.length - 1]! / mid - 1;
}

const READ_CONCURRENCY = 16;
const PAID_CLIENTS = 8;
const PAID_PATH = '/entrypoints/token_buy_usd';
/** Testnet payers (#5–#8 hold devnet USDC on 84532); #9 signs the baseline's settlements. */
const PAYERS = [5, 6, 7, 8];
const BASELINE_SIGNER = 9;
/** The PostgreSQL server's port (POSTGRES_URL's). */
const POSTGRES_PORT = Number(new URL(POSTGRES_URL).port || 5432);


const keyOf = (index: number) => toHex(devnetAccount(index).getHdKey().privateKey!);

function rpcOf(service: BenchProcess): string {
  const m = /eip155:84532 \(testnet\)\s+RPC (\S+)/.exec(service.output());
  if (!m) throw new Error(`no testnet RPC in the service's banner:\n${service.output()}`);
  return m[1]!;
}

/**
 * `concurrency` of `clients` paying back to back; a request is good when it ends in 200. Header
 * bytes are per paid call (both round trips); each client's last delivery is returned (buys
 * answer with one): the round's work is done once they are.
 */
async function paidLoad(
  clients: PayingClient[],
  concurrency: number,
  url: string,
  body: () => string,
  durationMs: number,
): Promise<LoadResult & { headerBytes: number; deliveries: string[] }> {
  headerTally.bytes = 0;
  const lastDelivery = new Map<number, string>();
  // A client is never in two calls at once: a batch client's channel takes one voucher at a time.
  const free = clients.slice(0, concurrency).map((c, i) => ({ c, i }));
  const result = await loadWith({
    concurrency,
    durationMs,
    one: async () => {
      const taken = free.shift()!;
      try {
        const { c, i } = taken;
        const res = await c.pay(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-wallet-address': c.account.address }, body: body() });
        const text = await res.text();
        if (res.status !== 200) return false;
        noteChannel(c, res);
        const delivery = (JSON.parse(text) as { data?: { delivery?: { deliveryId?: string } } }).data?.delivery?.deliveryId;
        if (delivery) lastDelivery.set(i, delivery);
        return true;
      } finally {
        free.push(taken);
      }
    },
  });
  return { ...result, headerBytes: headerTally.bytes / Math.max(1, result.count), deliveries: [...lastDelivery.values()] };
}

export async function benchReal(o: RealOptions): Promise<RealResult> {
  const dir = mkdtempSync(join(tmpdir(), 'launchpad-bench-real-'));
  const procs: BenchProcess[] = [];
  try {
    const env: Record<string, string> = {
      PORT: String(await freePorts(1)),
      HOST: '127.0.0.1',
      DATA_DIR: join(dir, 'data'),
      DEVNET_PORT: String(await freePorts(2)),
      RATE_LIMIT_FREE_PER_MINUTE: '0',
      LOG_LEVEL: 'warn',
      ...(o.databaseUrl ? { DATABASE_URL: o.databaseUrl } : {}),
    };
    // One directory per configuration: node writes a profile per thread (tsx's loader runs in one).
    const nodeArgs = o.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${join(o.profileDir, o.label)}`] : [];
    const counting = o.counts ?? true;
    const service = await startProcess(join('src', 'main.ts'), env, { nodeArgs, counts: counting });
    procs.push(service);
    const rssStart = service.rssMiB();

    // One token, created and paid for like any client would.
    const creator = devAccount(PAYERS[0]!);
    const created = await payingFetch(creator)(`${service.url}/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-wallet-address': creator.address },
      body: JSON.stringify({ name: 'Bench', symbol: 'BENCH' }),
    });
    const createdBody = (await created.json()) as { data: { tokenId: string } };
    if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(createdBody)}`);
    const tokenId = createdBody.data.tokenId;
    const view = await (await fetch(`${service.url}/tokens/${tokenId}`)).text();
    const bodyFile = join(dir, 'token.json');
    writeFileSync(bodyFile, view);

    const koa = await startProcess(join('bench', 'servers', 'bare-koa.ts'), { BODY_FILE: bodyFile });
    procs.push(koa);
    const express = await startProcess(join('bench', 'servers', 'x402-express.ts'), {
      RPC_URL: rpcOf(service),
      SETTLEMENT_KEY: keyOf(BASELINE_SIGNER),
      PAY_TO: devnetAccount(0).address,
    }, { counts: counting });
    procs.push(express);

    // The paying clients, for the whole run (a batch client's channel carries over from round to round).
    const depositCalls = o.batchDepositCalls ?? BATCH_DEPOSIT_CALLS;
    const clientsOf: Record<Scheme, PayingClient[]> = {
      exact: payingClients('exact', PAYERS, PAID_CLIENTS, depositCalls),
      batch: payingClients('batch', PAYERS, PAID_CLIENTS, depositCalls),
    };
    const chain = createPublicClient({ transport: http(rpcOf(service)) });
    const firstBlock = await chain.getBlockNumber(); // after the token's creation: only the rounds' transactions count

    const get = (base: string, path: string) => load({ url: `${base}${path}`, concurrency: READ_CONCURRENCY, durationMs: o.readMs, expectStatus: 200 });
    const buyBody = () => JSON.stringify({ tokenId, usdAmount: '0.01' });
    const fig = (): Figure => ({ ratio: 0, ratios: [], ours: [], baseline: [] });
    const read = fig();
    const health = fig();
    const paid = fig();
    const paidCpu: RealResult['paidCpu'] = { ours: [], baseline: [] };
    const paidWork: RealResult['paidWork'] = { ours: [], baseline: [] };
    const sides = Object.fromEntries(PAID_SIDES.map((side) => [side.key, { runs: [], cpu: [], work: [] }])) as unknown as Record<PaidSideKey, PaidSideResult>;
    /** `run`'s result and the CPU each process spent on it, per request that succeeded. */
    const cpuOf = async <R extends LoadResult>(run: () => Promise<R>): Promise<R & { cpu: CpuPerRequest }> => {
      const sample = () => {
        const svc = groupCpuMs(service.child.pid!);
        return {
          // Everything in the service's group but its anvils (Node 24 names its main thread MainThread, not node).
          service: Object.entries(svc).reduce((a, [comm, ms]) => (comm === 'anvil' ? a : a + ms), 0),
          anvil: svc.anvil ?? 0,
          baseline: Object.values(groupCpuMs(express.child.pid!)).reduce((a, b) => a + b, 0),
          clients: process.cpuUsage().user / 1000 + process.cpuUsage().system / 1000,
        };
      };
      // The database server's backends serving the service's connections (bench/processes.ts):
      // by process, so a backend that ends meanwhile takes nothing away, and not another session's.
      const backends = () => (o.databaseUrl ? backendCpuMs(groupClientPorts(service.child.pid!, POSTGRES_PORT)) : null);
      const before = sample();
      const pgBefore = backends();
      const result = await run();
      const after = sample();
      const pgAfter = backends();
      const n = Math.max(1, result.count - result.errors);
      const cpu = Object.fromEntries(Object.entries(after).map(([k, v]) => [k, (v - (before[k as keyof typeof before] ?? 0)) / n]));
      if (pgAfter) cpu.postgres = [...pgAfter].reduce((a, [pid, ms]) => a + ms - (pgBefore?.get(pid) ?? 0), 0) / n;
      return { ...result, cpu };
    };
    const cpuLine = (c: CpuPerRequest) => Object.entries(c).map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', ');
    const fmt = (r: LoadResult) => `${r.rps.toFixed(0)}/s p50 ${r.latency.p50.toFixed(1)} p99 ${r.latency.p99.toFixed(1)} max ${r.latency.max.toFixed(0)} ms${r.errors ? ` (${r.errors} errors)` : ''}`;

    // Warm both paths (JIT, connections, caches) before anything counts.
    if (!o.paidOnly) {
      await get(service.url, `/tokens/${tokenId}`);
      await get(koa.url, `/tokens/${tokenId}`);
    }
    for (let round = 0; round < o.rounds; round++) {
      // The previous round's buys leave deliveries for the workers to send: the reads start once
      // the service is idle again, so both read figures measure reads, not the backlog.
      await quiet(service);
      o.log(`[${o.label}] round ${round + 1}/${o.rounds}`);
      const reads = !o.paidOnly;
      const k = reads ? await get(koa.url, `/tokens/${tokenId}`) : null;
      const r = reads ? await get(service.url, `/tokens/${tokenId}`) : null;
      const h = reads ? await get(service.url, '/health') : null;
      if (r && k && h) {
        o.log(`  GET /tokens/:id  ours ${fmt(r)} | bare koa ${fmt(k)}`);
        o.log(`  GET /health      ${fmt(h)}`);
      }
      const counts = (p: BenchProcess) => (counting ? p.counts() : Promise.resolve(NO_WORK));
      const results = {} as Record<PaidSideKey, LoadResult & { cpu: CpuPerRequest }>;
      for (const side of PAID_SIDES) {
        const official = side.server === 'official';
        const target = official ? express : service;
        const url = official ? `${express.url}/buy` : `${service.url}${PAID_PATH}`;
        const body = official ? () => '{}' : buyBody;
        const c0 = await counts(target);
        const x = await cpuOf(() => paidLoad(clientsOf[side.scheme], side.concurrency, url, body, o.paidMs));
        const c1 = await counts(target);
        // The work the round left (ours): its deliveries sent and mined.
        if (!official) await delivered(service, x.deliveries);
        const c2 = official ? c1 : await counts(target);
        const ok = Math.max(1, x.count - x.errors);
        const request = { ...perRequest(c0, c1, ok), headerBytes: x.headerBytes };
        const after = perRequest(c1, c2, ok);
        const s = sides[side.key];
        s.runs.push(x);
        s.cpu.push(x.cpu);
        s.work.push({ request, after, total: addWork(request, after) });
        results[side.key] = x;
        o.log(`  ${side.label.padEnd(18)} ${fmt(x)}`);
        o.log(`  ${''.padEnd(18)} CPU ms/call ${cpuLine(x.cpu)}`);
        if (counting) o.log(`  ${''.padEnd(18)} work/call ${workLine(request)}${official ? '' : ` | after: ${workLine(after)}`}`);
      }
      const p = results.exact8;
      const x = results.official8;
      paidWork.baseline.push(sides.official8.work.at(-1)!.request);
      paidWork.ours.push(sides.exact8.work.at(-1)!);
      paidCpu.baseline.push(x.cpu);
      paidCpu.ours.push(p.cpu);
      if (r && k && h) {
        read.ours.push(r);
        read.baseline.push(k);
        read.ratios.push(r.rps / k.rps);
        health.ours.push(h);
        health.baseline.push(r);
        health.ratios.push(h.rps / r.rps);
      }
      paid.ours.push(p);
      paid.baseline.push(x);
      paid.ratios.push(p.rps / x.rps);
    }
    for (const f of [read, health, paid]) f.ratio = f.ratios.length ? median(f.ratios) : NaN;
    const rssEnd = service.rssMiB();

    // Pay once, call many, to its end: every channel refunded (its last charges claimed in the
    // refund's transaction), then the gas of every transaction the rounds mined.
    const refundFailures = await refundAll(clientsOf.batch, service.url, PAID_PATH);
    for (const f of refundFailures) o.log(`[${o.label}] refund refused: ${f}`);
    const readChannels = async () => {
      const books = { count: 0, charged: 0n, claimed: 0n, refundFailures };
      for (const c of clientsOf.batch) {
        if (!c.batch?.channelId) continue;
        const res = await fetch(`${service.url}/api/channels/${c.batch.channelId}`);
        if (!res.ok) continue;
        const { data } = (await res.json()) as { data: { charged: string; claimed: string } };
        books.count += 1;
        books.charged += BigInt(data.charged);
        books.claimed += BigInt(data.claimed);
      }
      return books;
    };
    let channels = await readChannels();
    // A channel with nothing left to refund (its deposits spent to the last call) keeps its last
    // charges for the workers' claim, once it has been quiet a minute (CLAIM_DEFAULTS): waited
    // for, so the claim and its settle are in the gas counted.
    if (channels.claimed < channels.charged) {
      const waited = Date.now();
      for (const deadline = Date.now() + 150_000; channels.claimed < channels.charged && Date.now() < deadline; channels = await readChannels()) {
        await new Promise((r) => setTimeout(r, 1_000));
      }
      // The claim's settle follows it in the same pass: the chain stops growing once it is mined.
      let head = await chain.getBlockNumber();
      for (let still = 0, deadline = Date.now() + 30_000; still < 4 && Date.now() < deadline; ) {
        await new Promise((r) => setTimeout(r, 500));
        const now = await chain.getBlockNumber();
        still = now === head ? still + 1 : 0;
        head = now;
      }
      o.log(`[${o.label}] waited ${((Date.now() - waited) / 1000).toFixed(0)} s for the workers to claim what no refund claimed`);
    }
    // Books = chain: each channel's claimed total in the books is the contract's.
    const chainClaimed = await Promise.all(
      clientsOf.batch.filter((c) => c.batch?.channelId).map(async (c) => {
        const id = c.batch!.channelId!;
        const [, totalClaimed] = (await chain.readContract({ address: BATCH_SETTLEMENT_CONTRACT, abi: CONTRACTS.X402BatchSettlement.abi, functionName: 'channels', args: [id as Hex] })) as readonly [bigint, bigint];
        return totalClaimed;
      }),
    );
    const onChain = chainClaimed.reduce((a, b) => a + b, 0n);
    if (onChain !== channels.claimed) o.log(`[${o.label}] books ≠ chain: the books say ${channels.claimed} claimed, the contract ${onChain}`);
    const gas = await gasByKind(rpcOf(service), firstBlock, await chain.getBlockNumber(), devnetAccount(BASELINE_SIGNER).address);
    o.log(`[${o.label}] ${channels.count} channels: charged ${channels.charged}, claimed ${channels.claimed}; gas by kind: ${Object.entries(gas).map(([k, v]) => `${k} ${v.txs} tx${v.vouchers ? ` (${v.vouchers} vouchers)` : ''} ${v.gas}`).join('; ')}`);
    let soak: RealResult['soak'];
    if (o.soakMs) {
      const samplesMiB = [service.rssMiB()];
      const timer = setInterval(() => samplesMiB.push(service.rssMiB()), 5_000);
      const result = await paidLoad(clientsOf.exact, PAID_CLIENTS, `${service.url}${PAID_PATH}`, buyBody, o.soakMs);
      clearInterval(timer);
      samplesMiB.push(service.rssMiB());
      soak = { samplesMiB, lastHalfGrowth: lastHalfGrowth(samplesMiB), paid: result };
      o.log(`[${o.label}] paid soak ${(o.soakMs / 1000).toFixed(0)} s: ${fmt(result)}; RSS ${samplesMiB.map((m) => m.toFixed(0)).join(' ')} MiB, last half ${(soak.lastHalfGrowth * 100).toFixed(1)}%`);
    }
    return { label: o.label, read, health, paid, paidCpu, paidWork, sides, gas, channels: { ...channels, claimedOnChain: onChain }, rssMiB: { start: rssStart, end: rssEnd }, ...(soak ? { soak } : {}) };
  } finally {
    for (const p of procs.reverse()) await p.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
