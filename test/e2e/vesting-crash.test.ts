/**
 * kill -9 of the service and both devnet chains at each step of a vested dev buy's release
 * (docs/decisions/0079) — its writes made and not committed; committed and its delivery not
 * signed; the delivery recorded and not broadcast; mined and not recorded as confirmed — then a
 * start on the same data. Afterwards the vesting is released in full, once: the creator holds on
 * chain exactly its dev buy, one delivery carried it, custody the rest. On SQLite every step; on
 * PostgreSQL the one that holds the others (committed, not signed), to keep the slow cases few.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, erc20Abi, http, type Hex } from 'viem';
import { afterAll, describe, expect, it } from 'vitest';
import { parseTokens } from '../../src/domain/money.js';
import { dropSchema, POSTGRES_URL } from '../support/postgres.js';
import { queryDatabase, serviceProcessEnv, startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { withoutServices } from '../support/services.js';
import { pollUntil } from '../support/wait.js';
import { devAccount, payingFetch } from '../support/x402-client.js';

const TREASURY = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const SUPPLY = 1_000_000_000n * 10n ** 18n;
const creator = devAccount(5);
const CRASHING = join('test', 'support', 'crashing-vesting-service.ts');

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

const moments = ['release-uncommitted', 'release-committed', 'release-recorded', 'release-mined'] as const;
type Moment = (typeof moments)[number];

const databases: [string, readonly Moment[], (dataDir: string) => Promise<string>][] = [
  ['SQLite', moments, async (dataDir) => `sqlite:${join(dataDir, 'service.db')}`],
  [
    'PostgreSQL',
    ['release-committed'],
    async () => {
      const schema = `vesting_crash_${process.pid}_${Date.now()}`;
      cleanups.push(() => dropSchema(schema));
      return `${POSTGRES_URL}?schema=${schema}`;
    },
  ],
];

describe.each(withoutServices(databases))('kill -9 during a vested dev buy’s release, on %s', (_name, at, database) => {
  it.each(at)('at %s: after a restart the vesting is released once, in full, on chain', async (moment) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-vesting-crash-'));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const databaseUrl = await database(dataDir);
    const { env, devnetPort } = await serviceProcessEnv(dataDir, databaseUrl, { LOG_LEVEL: 'warn' });
    let service: ServiceProcess = await startServiceProcess({ ...env, CRASH_AT: moment }, 60_000, CRASHING);
    cleanups.push(() => service.killAll());
    const died = new Promise<void>((resolve) => service.child.once('exit', () => resolve()));
    const chain = createPublicClient({ transport: http(`http://127.0.0.1:${devnetPort + 1}`) });

    // Everything vests at a cliff a few seconds on (a duration of 0): one release, after the token is deployed.
    const res = await payingFetch(creator)(`${service.url}/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-wallet-address': creator.address },
      body: JSON.stringify({ name: 'Vest Crash', symbol: 'VCR', initialBuyUsd: '3', vesting: { cliffSeconds: 3, durationSeconds: 0 } }),
    });
    expect(res.status).toBe(201);
    const created = ((await res.json()) as { data: { tokenId: string; address: string; initialBuy: { tokensReceived: string } } }).data;
    const bought = parseTokens(created.initialBuy.tokensReceived);
    const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 60_000));
    expect(await Promise.race([died.then(() => 'died' as const), timeout]), service.output().slice(-4_000)).toBe('died');
    await service.killAll(); // what is left of its group, if anything

    const rows = <T>(sql: string) => queryDatabase<T>(databaseUrl, sql);
    const vesting = async () => (await rows<{ released: string | null; next: unknown }>(`select vesting_released as released, vesting_next_at as next from tokens where token_id = '${created.tokenId}'`))[0]!;
    const atCrash = await vesting();
    // Not committed: nothing released yet. Committed (or further): released in full, once.
    expect(BigInt(String(atCrash.released))).toBe(moment === 'release-uncommitted' ? 0n : bought);

    service = await startServiceProcess(env);
    const deliveries = () => rows<{ source_id: string; amount: string; state: string; tx_hash: string | null }>(`select source_id, amount, state, tx_hash from deliveries where token_id = '${created.tokenId}'`);
    await pollUntil(async () => {
      const v = await vesting();
      const left = (await deliveries()).filter((d) => d.state !== 'CONFIRMED').length;
      return v.next === null && BigInt(String(v.released)) === bought && left === 0;
    }, { timeoutMs: 60_000, stepMs: 250 });

    const carried = await deliveries();
    expect(carried.map((d) => ({ source: d.source_id, amount: BigInt(d.amount), state: d.state }))).toEqual([{ source: `vesting:${created.tokenId}:1`, amount: bought, state: 'CONFIRMED' }]);
    const balanceOf = (owner: string) => chain.readContract({ address: created.address as Hex, abi: erc20Abi, functionName: 'balanceOf', args: [owner as Hex] });
    expect(await balanceOf(creator.address)).toBe(bought);
    expect(await balanceOf(TREASURY)).toBe(SUPPLY - bought);
    const events = await rows<{ n: number }>(`select count(*) as n from events where type = 'vesting.released' and token_id = '${created.tokenId}'`);
    expect(Number(events[0]!.n)).toBe(1);
    await service.stop();
  }, 180_000);
});
