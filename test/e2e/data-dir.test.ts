/**
 * Two instances on one DATA_DIR (#23.4), as the issue met them: a second `npm start` with its
 * own PORT and DEVNET_PORT but the default DATA_DIR read the first one's anvil pid files and
 * killed its live chains. Now the second refuses in one line naming DATA_DIR and touches
 * nothing; a service killed with kill -9 leaves its lock file and its anvil processes behind,
 * and the next start takes the lock over and stops exactly those anvils.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, http } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/bootstrap/config/config.js';
import { startService } from '../../src/bootstrap/compose.js';
import { freePorts } from '../support/free-ports.js';
import { dropSchema, POSTGRES_URL } from '../support/postgres.js';
import { itWithServices } from '../support/services.js';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { pollUntil } from '../support/wait.js';
import { devAccount, payingFetch } from '../support/x402-client.js';

const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-data-dir-'));
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
  rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const anvilPids = () => [8453, 84532].map((id) => Number(readFileSync(join(dataDir, 'devnet', `anvil-${id}.pid`), 'utf8')));
/** The parent of a process (Linux): the service process that started an anvil. */
const parentOf = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);

/** `npm start` on this DATA_DIR with ports of its own. */
const settings = async () => ({
  PORT: String(await freePorts(1)),
  DEVNET_PORT: String(await freePorts()),
  DATA_DIR: dataDir,
  DATABASE_URL: `sqlite:${join(dataDir, 'service.db')}`,
  LOG_LEVEL: 'warn',
  RATE_LIMIT_FREE_PER_MINUTE: '0',
});

/** Runs `npm start` until it exits — or, if it starts instead of refusing, until it listens (then kills it). */
function runToExit(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [join('node_modules', 'tsx', 'dist', 'cli.mjs'), join('src', 'main.ts')], {
    env: { ...process.env, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => {
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (stdout.includes('listening on')) process.kill(-child.pid!, 'SIGKILL');
    });
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

async function health(url: string): Promise<{ status: number; chain: string }> {
  const res = await fetch(`${url}/health`);
  return { status: res.status, chain: ((await res.json()) as { data: { checks: { chain: string } } }).data.checks.chain };
}

/** A paid request: wallet #5 creates a token on the testnet chain (settled on chain 84532). */
async function createToken(url: string, symbol: string): Promise<number> {
  const wallet = devAccount(5);
  const res = await payingFetch(wallet)(`${url}/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address },
    body: JSON.stringify({ name: `Data dir ${symbol}`, symbol }),
  });
  await res.arrayBuffer();
  return res.status;
}

let first: ServiceProcess;
let firstEnv: Awaited<ReturnType<typeof settings>>;

beforeAll(async () => {
  firstEnv = await settings();
  first = await startServiceProcess(firstEnv);
  cleanups.push(() => first.killAll());
}, 60_000);

describe.skipIf(process.platform !== 'linux')('two instances on one DATA_DIR', () => {
  it('the second refuses in one line naming DATA_DIR, and the first keeps its chains and still takes payments', async () => {
    const anvils = anvilPids();
    const second = await runToExit(await settings());
    expect(second.stdout).toBe('');
    const holder = parentOf(anvils[0]!); // the first's service process
    expect(second.stderr).toBe(`DATA_DIR ${dataDir} is in use (another instance, pid ${holder}) — set DATA_DIR\n`);
    expect(second.code).toBe(1);
    // On PostgreSQL too: the devnet's chains still live in DATA_DIR.
    const onPostgres = await runToExit({ ...(await settings()), DATABASE_URL: `${POSTGRES_URL}?schema=data_dir_${process.pid}` });
    expect(onPostgres.stderr).toBe(second.stderr);
    expect(onPostgres.code).toBe(1);

    // Nothing of the first was touched: its anvils, their pid files, its chains, its payments.
    expect(anvils.every(alive)).toBe(true);
    expect(anvilPids()).toEqual(anvils);
    expect(await health(first.url)).toEqual({ status: 200, chain: 'ok' });
    const testnet = createPublicClient({ transport: http(`http://127.0.0.1:${Number(firstEnv.DEVNET_PORT) + 1}`) });
    expect(await testnet.getChainId()).toBe(84532);
    expect(await createToken(first.url, 'DDA')).toBe(201);
    expect(first.output()).not.toContain('"level":"error"');
  }, 120_000);

  it('after kill -9 of the service alone, the next start takes the lock over, stops the anvils it left (saying so), and serves', async () => {
    const orphans = anvilPids();
    const service = parentOf(orphans[0]!);
    const exited = new Promise((r) => (first.child.exitCode !== null ? r(null) : first.child.once('exit', r)));
    process.kill(service, 'SIGKILL'); // no exit handler runs: its anvils live on, its lock file stays
    await exited;
    expect(orphans.every(alive)).toBe(true);
    expect(existsSync(join(dataDir, 'service.lock'))).toBe(true);

    const next = await startServiceProcess(firstEnv);
    cleanups.push(() => next.stop());
    await pollUntil(() => !orphans.some(alive), { stepMs: 50 });
    expect(orphans.filter(alive)).toEqual([]);
    for (const pid of orphans) expect(next.output()).toMatch(new RegExp(`"level":"warn"[^\\n]*"msg":"devnet eip155:\\d+: stopping anvil pid ${pid}, left running on `));
    expect(anvilPids().some((pid) => orphans.includes(pid))).toBe(false);
    expect(await health(next.url)).toEqual({ status: 200, chain: 'ok' });
    expect(await createToken(next.url, 'DDB')).toBe(201);

    // The orphans were stopped, not crashed into by the new chains: nothing went wrong on the way.
    expect(next.output()).not.toContain('"level":"error"');
    await next.stop();
    // A graceful stop lets the next instance in at once.
    const after = await startServiceProcess(await settings());
    cleanups.push(() => after.stop());
    expect(await health(after.url)).toEqual({ status: 200, chain: 'ok' });
  }, 180_000);
});

describe('which services keep DATA_DIR to themselves', () => {
  const REAL = {
    PORT: '0',
    LOG_LEVEL: 'silent',
    WORKERS: 'false',
    RPC_URL_8453: 'http://127.0.0.1:9',
    RPC_URL_84532: 'http://127.0.0.1:9',
    PAY_TO_8453: '0x1111111111111111111111111111111111111111',
    PAY_TO_84532: '0x2222222222222222222222222222222222222222',
    TREASURY_KEY: `0x${'3'.repeat(64)}`,
    LAUNCH_FACTORY_8453: '0x4444444444444444444444444444444444444444',
    LAUNCH_FACTORY_84532: '0x5555555555555555555555555555555555555555',
  };

  it('on real networks, the SQLite file in DATA_DIR takes the lock: a second service there is refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'launchpad-data-dir-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const config = loadConfig({ ...REAL, DATA_DIR: dir });
    const one = await startService(config);
    try {
      await expect(startService(config)).rejects.toThrow(`DATA_DIR ${dir} is in use (another instance, pid ${process.pid}) — set DATA_DIR`);
    } finally {
      await one.stop();
    }
    await (await startService(config)).stop();
  });

  itWithServices('on real networks with PostgreSQL, DATA_DIR is not used: instances beside each other all start', async () => {
    const schema = `data_dir_${process.pid}_${Date.now()}`;
    cleanups.push(() => dropSchema(schema));
    const config = (settlementKey: string) => loadConfig({ ...REAL, DATA_DIR: dataDir, DATABASE_URL: `${POSTGRES_URL}?schema=${schema}`, SETTLEMENT_KEY: settlementKey });
    // Each its own settlement key, as every process beside another needs (docs/operations.md, "Scale-out").
    const one = await startService(config(`0x${'6'.repeat(64)}`));
    const two = await startService(config(`0x${'7'.repeat(64)}`));
    await two.stop();
    await one.stop();
  }, 30_000);
});
