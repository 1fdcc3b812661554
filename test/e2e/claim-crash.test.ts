/**
 * kill -9 of the service and both devnet chains while batch-settlement channels are claimed
 * (docs/payments.md "Pay once, call many"): right after the claims are marked under way, and right
 * after the claim transaction is mined but before it is recorded or settled to the treasury. After
 * a start on the same data the channel is claimed exactly once: the contract's claimed total is
 * what was charged, the treasury gained exactly that, and the books equal the chain.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatchSettlementEvmScheme } from '@x402/evm/batch-settlement/client';
import { wrapFetchWithPaymentFromConfig } from '@x402/fetch';
import { createPublicClient, http, type Hex } from 'viem';
import { afterAll, describe, expect, it } from 'vitest';
import { USDC_ABI } from '../../src/adapters/chain/anvil/devnet-constants.js';
import { BATCH_SETTLEMENT_CONTRACT } from '../../src/adapters/kit/x402/batch-settlement.js';
import { CONTRACTS } from '../../src/adapters/kit/evm/contracts/artifacts.js';
import { NETWORKS, TESTNET } from '../../src/domain/network.js';
import { dropSchema, POSTGRES_URL } from '../support/postgres.js';
import { queryDatabase, serviceProcessEnv, startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { withoutServices } from '../support/services.js';
import { pollUntil } from '../support/wait.js';
import { devAccount, payingFetch } from '../support/x402-client.js';

const TREASURY = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const CRASHING = join('test', 'support', 'crashing-service.ts');
const creator = devAccount(8);
const payer = devAccount(7);

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

const moments = ['claim-marked', 'claim-mined'] as const;
const databases: [string, readonly (typeof moments)[number][], (dataDir: string) => Promise<string>][] = [
  ['SQLite', moments, async (dataDir) => `sqlite:${join(dataDir, 'service.db')}`],
  [
    'PostgreSQL',
    ['claim-mined'],
    async () => {
      const schema = `claim_crash_${process.pid}_${Date.now()}`;
      cleanups.push(() => dropSchema(schema));
      return `${POSTGRES_URL}?schema=${schema}`;
    },
  ],
];

describe.each(withoutServices(databases))('kill -9 during batch-settlement claims, on %s', (_name, at, database) => {
  it.each(at)('at %s: after a restart the channel is claimed once and the treasury gains exactly the charges', async (moment) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-claim-crash-'));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const databaseUrl = await database(dataDir);
    const { env, devnetPort } = await serviceProcessEnv(dataDir, databaseUrl, { CHANNEL_CLAIM_IDLE_SECONDS: '1', LOG_LEVEL: 'warn' });
    let service: ServiceProcess = await startServiceProcess({ ...env, CRASH_AT: moment }, 60_000, CRASHING);
    cleanups.push(() => service.killAll());
    const died = new Promise<void>((resolve) => service.child.once('exit', () => resolve()));
    const chain = createPublicClient({ transport: http(`http://127.0.0.1:${devnetPort + 1}`) });
    const usdc = (who: string) => chain.readContract({ address: NETWORKS[TESTNET].usdc, abi: USDC_ABI, functionName: 'balanceOf', args: [who as Hex] }) as Promise<bigint>;
    const post = (f: typeof fetch, path: string, body: unknown, wallet: string) =>
      f(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-wallet-address': wallet }, body: JSON.stringify(body) });

    const created = await post(payingFetch(creator), '/tokens', { name: 'Claim Crash', symbol: 'CLCR' }, creator.address);
    expect(created.status).toBe(201);
    const tokenId = ((await created.json()) as { data: { tokenId: string } }).data.tokenId;
    const treasuryBefore = await usdc(TREASURY);
    const paying = wrapFetchWithPaymentFromConfig(fetch, { schemes: [{ network: 'eip155:*', client: new BatchSettlementEvmScheme(payer) }], spendControls: false });
    for (let i = 0; i < 5; i++) expect((await post(paying, '/entrypoints/token_info', { tokenId }, payer.address)).status).toBe(200);
    const charged = 5_000n;

    // A second of quiet: the workers claim, and the service dies at the moment.
    const outcome = await Promise.race([died.then(() => 'died' as const), new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 60_000))]);
    expect(outcome, service.output()).toBe('died');
    await service.killAll();
    const [marked] = await queryDatabase<{ channel_id: string; claiming: string | null; claimed: string }>(databaseUrl, `select channel_id, claiming, claimed from channels`);
    expect(marked!.claiming).not.toBeNull(); // caught under way

    service = await startServiceProcess({ ...env });
    const onChain = async () =>
      (await chain.readContract({ address: BATCH_SETTLEMENT_CONTRACT, abi: CONTRACTS.X402BatchSettlement.abi, functionName: 'channels', args: [marked!.channel_id as Hex] })) as readonly [bigint, bigint];
    const done = async () => {
      const [row] = await queryDatabase<{ claiming: string | null; claimed: string }>(databaseUrl, `select claiming, claimed from channels`);
      return row!.claiming === null && BigInt(row!.claimed) === charged && (await usdc(TREASURY)) - treasuryBefore === charged;
    };
    await pollUntil(done, { timeoutMs: 60_000, stepMs: 250 });
    expect(await done(), service.output()).toBe(true);
    const [, totalClaimed] = await onChain();
    expect(totalClaimed).toBe(charged);
    expect((await usdc(TREASURY)) - treasuryBefore).toBe(charged);
  }, 180_000);
});
