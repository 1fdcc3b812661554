/**
 * The scale-out recipe of docs/operations.md, run as written: one worker process (A) and
 * API-only processes (B, C) — plus, for the fault, a standby worker process (D) — each `npm start`
 * as a child process, on one PostgreSQL schema and Redis, against one chain they share by RPC.
 * Buys and sells go through every process at once.
 *
 * - Steady: no payment fails, no custody or settlement transaction is ever signed twice (no
 *   nonce collision, no resend, nothing FAILED or retried), and the books equal the chain.
 * - A, custody's signer, is killed -9 mid-burst: D takes custody over, what A left is finished,
 *   and the books equal the chain.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createTestClient, http, parseEther, type Hex, type PublicClient } from 'viem';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { devnetAccount, DEVNET_UNISWAP_V2, LAUNCH_FACTORY_ADDRESS } from '../../src/adapters/chain/anvil/devnet-constants.js';
import { PRODUCTION, TESTNET, type Network } from '../../src/domain/network.js';
import { expectBooksEqualChain, TREASURY, usdcOf, waitUntilFinished } from '../support/books.js';
import { TestDevnet } from '../support/devnet.js';
import { freePorts } from '../support/free-ports.js';
import { dropSchema, POSTGRES_URL } from '../support/postgres.js';
import { itWithServices, WITH_SERVICES } from '../support/services.js';
import { queryDatabase, startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { signedSellBody } from '../support/onchain.js';
import { waitFor } from '../support/wait.js';
import { devAccount, payingFetch } from '../support/x402-client.js';

const WALLETS = [5, 6, 7, 8].map(devAccount);
const keyOf = (index: number): Hex => `0x${Buffer.from(devnetAccount(index).getHdKey().privateKey!).toString('hex')}`;
/** Each process its own settlement key (funded with gas below); custody is the treasury's, account #0. */
const SETTLEMENT_KEYS = { A: keyOf(10), B: keyOf(11), C: keyOf(12), D: keyOf(13) };

let devnet: TestDevnet;
let snapshot: Record<Network, Hex>;
let chain: PublicClient;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  if (!WITH_SERVICES) return; // PostgreSQL and Redis are what this file is about
  devnet = await TestDevnet.start({ port: await freePorts(), idleBlockMs: 1_000 });
  for (const network of [PRODUCTION, TESTNET] as const) {
    const anvil = createTestClient({ mode: 'anvil', transport: http(devnet.chains[network].rpcUrl) });
    for (const index of [10, 11, 12, 13]) await anvil.setBalance({ address: devnetAccount(index).address, value: parseEther('100') });
  }
  chain = devnet.publicClient(TESTNET) as PublicClient;
}, 60_000);
afterAll(async () => {
  await devnet?.stop();
});
beforeEach(async () => {
  if (devnet) snapshot = await devnet.snapshot();
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  if (devnet) await devnet.revert(snapshot);
});

/** docs/operations.md, "Scale-out": what every process shares, and what is each one's own. */
function environment(databaseUrl: string, which: keyof typeof SETTLEMENT_KEYS, workers: boolean, dataDir: string): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    REDIS_URL: 'redis://127.0.0.1:6379',
    RPC_URL_8453: devnet.chains[PRODUCTION].rpcUrl,
    RPC_URL_84532: devnet.chains[TESTNET].rpcUrl,
    TREASURY_KEY: keyOf(0),
    PAY_TO_8453: TREASURY,
    PAY_TO_84532: TREASURY,
    LAUNCH_FACTORY_8453: LAUNCH_FACTORY_ADDRESS,
    LAUNCH_FACTORY_84532: LAUNCH_FACTORY_ADDRESS,
    UNISWAP_V2_ROUTER_8453: DEVNET_UNISWAP_V2.router,
    UNISWAP_V2_FACTORY_8453: DEVNET_UNISWAP_V2.factory,
    UNISWAP_V2_ROUTER_84532: DEVNET_UNISWAP_V2.router,
    UNISWAP_V2_FACTORY_84532: DEVNET_UNISWAP_V2.factory,
    QUOTE_PROVIDERS: 'fixed',
    INDEXER_CONFIRMATIONS: '0',
    RATE_LIMIT_FREE_PER_MINUTE: '100000', // counted in Redis, shared by every process
    EARNINGS_PAYOUT_MIN_USD: '0.01', // creators' shares paid out as they reach a cent: more of custody's payouts in the burst
    // Each process's own:
    SETTLEMENT_KEY: SETTLEMENT_KEYS[which],
    WORKERS: String(workers),
    PORT: '0',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
  };
}

async function cluster(schemaPrefix: string, processes: { name: keyof typeof SETTLEMENT_KEYS; workers: boolean }[], extra: Record<string, string> = {}) {
  const schema = `sig_${schemaPrefix}_${randomBytes(4).toString('hex')}`;
  const databaseUrl = `${POSTGRES_URL}?schema=${schema}`;
  cleanups.push(() => dropSchema(schema));
  const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-scale-'));
  cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
  const started: Partial<Record<keyof typeof SETTLEMENT_KEYS, ServiceProcess>> = {};
  for (const p of processes) {
    // One after the other: the first worker process takes custody's lock before any other could.
    const service = await startServiceProcess({ ...environment(databaseUrl, p.name, p.workers, join(dataDir, p.name)), ...extra });
    cleanups.push(() => service.stop());
    started[p.name] = service;
  }
  return { databaseUrl, processes: started as Record<keyof typeof SETTLEMENT_KEYS, ServiceProcess> };
}

const call = (url: string, wallet: (typeof WALLETS)[number], path: string, body: unknown) =>
  payingFetch(wallet)(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address },
    body: JSON.stringify(body),
  });
const read = async (url: string, path: string) => ((await (await fetch(`${url}${path}`)).json()) as { data: any }).data;

/** Each wallet creates a token through one process and waits for it on chain. */
async function launch(urls: string[]): Promise<string[]> {
  const tokens = await Promise.all(
    WALLETS.map(async (w, i) => {
      const res = await call(urls[i % urls.length]!, w, '/tokens', { name: `Scale ${i}`, symbol: `SC${i}` });
      expect(res.status).toBe(201);
      return ((await res.json()) as { data: { tokenId: string } }).data.tokenId;
    }),
  );
  await Promise.all(tokens.map((id) => waitFor(`${id} deployed`, async () => (await read(urls[0]!, `/tokens/${id}`)).deployment.state === 'DEPLOYED', { stepMs: 50 })));
  return tokens;
}

/** One round of a wallet: a buy through one process, its delivery on chain, a sell through the next. */
async function round(urls: string[], w: (typeof WALLETS)[number], token: string, turn: number): Promise<number[]> {
  const buyUrl = urls[turn % urls.length]!;
  const sellUrl = urls[(turn + 1) % urls.length]!;
  const buy = await call(buyUrl, w, '/entrypoints/token_buy_usd', { tokenId: token, usdAmount: '0.5' });
  const statuses = [buy.status];
  if (buy.status !== 200) return statuses;
  const { deliveryId } = ((await buy.json()) as { data: { delivery: { deliveryId: string } } }).data.delivery;
  await waitFor(`delivery ${deliveryId} confirmed`, async () => (await read(sellUrl, `/api/deliveries/${deliveryId}`)).state === 'CONFIRMED', { stepMs: 50 });
  const sell = await call(sellUrl, w, '/entrypoints/token_sell', await signedSellBody(sellUrl, w, token, '100'));
  statuses.push(sell.status);
  return statuses;
}

const snapshotUsdc = async () => ({
  wallets: new Map(await Promise.all(WALLETS.map(async (w) => [w.address, await usdcOf(chain, w.address)] as const))),
  treasury: await usdcOf(chain, TREASURY),
});

/** Lines of a process's log that say a transaction was signed again because its nonce was taken. */
const resends = (p: ServiceProcess) =>
  p
    .output()
    .split('\n')
    .filter((l) => /signed again|nonce gap|not mined/.test(l));

itWithServices('A (workers) + B + C (API only): buys and sells through all three, no nonce collision or resend, and the books equal the chain', async () => {
  const before = await snapshotUsdc();
  const { databaseUrl, processes } = await cluster('steady', [
    { name: 'A', workers: true },
    { name: 'B', workers: false },
    { name: 'C', workers: false },
  ]);
  const urls = [processes.A.url, processes.B.url, processes.C.url];
  const tokens = await launch(urls);
  const statuses = (await Promise.all(WALLETS.map(async (w, i) => (await Promise.all([0, 1, 2].map((turn) => round(urls, w, tokens[i]!, turn + i)))).flat()))).flat();
  expect(statuses.filter((s) => s !== 200)).toEqual([]);
  expect(statuses.length).toBe(WALLETS.length * 3 * 2);

  await waitUntilFinished(databaseUrl, chain);
  // Custody signed in A alone, each process settled with its own key: nothing was ever signed twice.
  for (const p of Object.values(processes)) expect(resends(p)).toEqual([]);
  for (const table of ['payouts', 'deliveries', 'deployments']) {
    expect(await queryDatabase(databaseUrl, `select * from ${table} where attempts <> 1 or last_error is not null`)).toEqual([]);
  }
  expect(processes.A.output()).toContain("this process now signs custody's transactions");
  for (const p of [processes.B, processes.C]) expect(p.output()).not.toContain("this process now signs custody's transactions");
  await expectBooksEqualChain({ databaseUrl, chain, wallets: WALLETS.map((w) => w.address), usdcBefore: before.wallets, treasuryBefore: before.treasury });
}, 240_000);

itWithServices('kill -9 of A, custody signer, mid-burst: D takes custody over, what A left is finished, and the books equal the chain', async () => {
  const before = await snapshotUsdc();
  const { databaseUrl, processes } = await cluster(
    'fault',
    [
      { name: 'A', workers: true },
      { name: 'D', workers: true },
      { name: 'B', workers: false },
      { name: 'C', workers: false },
    ],
    { RECONCILER_GRACE_SECONDS: '2' },
  );
  const tokens = await launch([processes.A.url, processes.B.url, processes.C.url]);
  expect(processes.D.output()).not.toContain("this process now signs custody's transactions");
  let urls = [processes.A.url, processes.B.url, processes.C.url];
  let running = true;
  let killed = false;
  let done = 0;
  const afterKill: number[] = [];
  const burst = WALLETS.map(async (w, i) => {
    for (let turn = i; running; turn++) {
      const late = killed;
      // A call A was serving when it died fails on the client's side; the next goes on.
      const statuses = await round(urls, w, tokens[i]!, turn).catch(() => [0]);
      if (late) afterKill.push(...statuses);
      done += 1;
    }
  });
  await waitFor('6 rounds done', () => done >= 6, { timeoutMs: 120_000, stepMs: 50 });
  await processes.A.killAll();
  urls = [processes.B.url, processes.C.url];
  killed = true;
  const after = done;
  await waitFor('8 rounds done after the kill', () => done >= after + 8, { timeoutMs: 120_000, stepMs: 50 });
  running = false;
  await Promise.all(burst);
  // Every buy and sell begun after the kill went through: sells' pulls and deliveries were signed by D.
  expect(afterKill.length).toBeGreaterThan(0);
  expect(afterKill.filter((s) => s !== 200)).toEqual([]);

  await waitFor('D signing for custody', () => processes.D.output().includes("this process now signs custody's transactions"), { stepMs: 50 });
  await waitUntilFinished(databaseUrl, chain, 120_000);
  await expectBooksEqualChain({ databaseUrl, chain, wallets: WALLETS.map((w) => w.address), usdcBefore: before.wallets, treasuryBefore: before.treasury });
}, 300_000);

itWithServices('the configuration mistakes of a scale-out are refused at start, each with one line naming the setting', async () => {
  const { databaseUrl, processes } = await cluster('refused', [{ name: 'A', workers: true }]);
  await waitFor('A signing for custody', () => processes.A.output().includes("this process now signs custody's transactions"), { stepMs: 50 });
  const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-refused-'));
  cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
  const refusal = async (over: Record<string, string | undefined>, workers = false) => {
    const env: Record<string, string | undefined> = { ...environment(databaseUrl, 'B', workers, dataDir), LOG_LEVEL: 'warn', ...over };
    for (const [k, v] of Object.entries(over)) if (v === undefined) delete env[k];
    const started = await startServiceProcess(env as Record<string, string>).then(
      async (p) => {
        await p.stop();
        return null;
      },
      (e: Error) => e.message,
    );
    expect(started).toMatch(/exited with 1/);
    return started!.trim().split('\n').at(-1)!;
  };
  // B forgets its own settlement key: it would settle with custody's.
  expect(await refusal({ SETTLEMENT_KEY: undefined })).toBe(
    `SETTLEMENT_KEY (unset, so TREASURY_KEY) is custody's key, which only a worker process signs with: an API-only process (WORKERS=false) needs its own SETTLEMENT_KEY (docs/operations.md, "Scale-out")`,
  );
  // B copies A's settlement key; a second worker process forgets its own.
  const a = devnetAccount(10).address;
  expect(await refusal({ SETTLEMENT_KEY: SETTLEMENT_KEYS.A })).toMatch(
    // (the pid is the service's own: under tsx, a child of the one spawned)
    new RegExp(`^SETTLEMENT_KEY ${a} already settles payments in another live process \\(pid \\d+ on .+\\) — give each process its own SETTLEMENT_KEY`),
  );
  expect(await refusal({ SETTLEMENT_KEY: undefined }, true)).toMatch(/^SETTLEMENT_KEY \(unset, so TREASURY_KEY\) 0xf39F\w+ already settles payments in another live process \(pid \d+ on .+\)/);
  // Another factory: every token B created would be announced where A can never deploy it.
  const other = '0x000000000000000000000000000000000000fAc7';
  expect(await refusal({ LAUNCH_FACTORY_84532: other })).toBe(
    `LAUNCH_FACTORY_84532 is ${other.toLowerCase()} here but ${LAUNCH_FACTORY_ADDRESS.toLowerCase()} for the processes before — every process on this database must agree (docs/operations.md, "Scale-out"); to change it for all, stop them and start one with ACCEPT_SETTINGS_CHANGE=LAUNCH_FACTORY_84532`,
  );
  // An RPC of the wrong chain.
  expect(await refusal({ RPC_URL_8453: devnet.chains[TESTNET].rpcUrl })).toBe('RPC_URL_8453 answers chain id 84532, not 8453 — point it at a node of eip155:8453');
}, 180_000);
