/**
 * kill -9 of the service and both devnet chains at the exact moments a delivery batch can be
 * caught in (docs/decisions/0035) — recorded and not broadcast; the first batch mined while the
 * second is recorded and not broadcast; mined and not yet recorded as confirmed — during a burst
 * of paid buys, then a start on the same data. Afterwards every delivery is CONFIRMED and every
 * wallet holds on chain exactly what the ledger says, custody the rest: no delivery lost, none
 * sent twice. On SQLite and PostgreSQL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, erc20Abi, http, type Hex, type PublicClient } from 'viem';
import { afterAll, describe, expect, it } from 'vitest';
import { USDC_ABI } from '../../src/adapters/chain/anvil/devnet-constants.js';
import { NETWORKS, TESTNET } from '../../src/domain/network.js';
import { dropSchema, POSTGRES_URL } from '../support/postgres.js';
import { queryDatabase, serviceProcessEnv, startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { pollUntil } from '../support/wait.js';
import { devAccount, payingFetch } from '../support/x402-client.js';
import { withoutServices } from '../support/services.js';

const TREASURY = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const SUPPLY = 1_000_000_000n * 10n ** 18n;
const WALLETS = [5, 6, 7, 8].map(devAccount);
const CRASHING = join('test', 'support', 'crashing-service.ts');

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

const moments = ['batch-recorded', 'second-batch-recorded', 'batch-mined'] as const;
type Moment = (typeof moments)[number];

// Every moment on SQLite (the `npm start` default); on PostgreSQL the one that holds the others
// (a batch mined, the next recorded and not broadcast), to keep the slow cases few.
const databases: [string, readonly Moment[], (dataDir: string) => Promise<string>][] = [
  ['SQLite', moments, async (dataDir) => `sqlite:${join(dataDir, 'service.db')}`],
  [
    'PostgreSQL',
    ['second-batch-recorded'],
    async () => {
      const schema = `perf_batch_crash_${process.pid}_${Date.now()}`;
      cleanups.push(() => dropSchema(schema));
      return `${POSTGRES_URL}?schema=${schema}`;
    },
  ],
];

describe.each(withoutServices(databases))('kill -9 at a delivery batch, on %s', (_name, at, database) => {
  it.each(at)('at %s: after a restart every delivery lands once, and the chain equals the books', async (moment) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-batch-crash-'));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const databaseUrl = await database(dataDir);
    const { env, devnetPort } = await serviceProcessEnv(dataDir, databaseUrl, { RECONCILER_GRACE_SECONDS: '2', LOG_LEVEL: 'warn' });
    let service: ServiceProcess = await startServiceProcess({ ...env, CRASH_AT: moment }, 60_000, CRASHING);
    cleanups.push(() => service.killAll());
    const died = new Promise<void>((resolve) => service.child.once('exit', () => resolve()));
    const chain = createPublicClient({ transport: http(`http://127.0.0.1:${devnetPort + 1}`) });

    const call = (wallet: (typeof WALLETS)[number], path: string, body: unknown) =>
      payingFetch(wallet)(`${service.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address },
        body: JSON.stringify(body),
      });
    // Buys start before the token's contract is deployed, so the first deliveries become ready
    // together, in one pass: the first batch. The burst goes on until the service kills itself.
    const created = (await (await call(WALLETS[0]!, '/tokens', { name: 'Batch Crash', symbol: 'BCR' })).json()) as { data: { tokenId: string } };
    const tokenId = created.data.tokenId;
    let running = true;
    const answered: Record<number, number> = {};
    const burst = WALLETS.map(async (w) => {
      while (running) {
        try {
          const res = await call(w, '/entrypoints/token_buy_usd', { tokenId, usdAmount: '0.5' });
          answered[res.status] = (answered[res.status] ?? 0) + 1;
          await res.arrayBuffer();
        } catch {
          if (running) await new Promise((r) => setTimeout(r, 50)); // the service is gone
        }
      }
    });
    const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 60_000));
    const outcome = await Promise.race([died.then(() => 'died' as const), timeout]);
    // Never reached the moment: say where the burst and the books stood, and what the service logged.
    expect(outcome, outcome === 'died' ? '' : await whereItStood(databaseUrl, answered, service.output(), chain)).toBe('died');
    running = false;
    await Promise.all(burst);
    await service.killAll(); // what is left of its group, if anything

    // The batch the crash caught, as the books hold it.
    const batchesAtCrash = await queryDatabase<{ batch_id: string; tx_hash: string; state: string; size: number }>(
      databaseUrl,
      `select batch_id, tx_hash, state, size from delivery_batches order by created_at`,
    );
    // Caught SENT: the first batch (recorded, or mined and not yet confirmed), or the second while
    // the first, already mined, may have been confirmed in the pass before.
    expect(batchesAtCrash.length).toBe(moment === 'second-batch-recorded' ? 2 : 1);
    expect(batchesAtCrash.at(-1)!.state).toBe('SENT');

    service = await startServiceProcess(env);
    const count = async (sql: string) => Number((await queryDatabase<{ n: number }>(databaseUrl, sql))[0]!.n);
    const authorizationUsed = (payer: string, nonce: string) =>
      chain.readContract({ address: NETWORKS[TESTNET].usdc, abi: USDC_ABI, functionName: 'authorizationState', args: [payer as Hex, nonce as Hex] }) as Promise<boolean>;
    // A settlement cut off before it reached the chain stays SETTLING (unused): it owes nothing.
    const settlingButUsed = async () => {
      let n = 0;
      for (const p of await queryDatabase<{ payer: string; nonce_lower: string }>(databaseUrl, `select payer, nonce_lower from payments where state = 'SETTLING'`)) {
        if (await authorizationUsed(p.payer, p.nonce_lower)) n += 1;
      }
      return n;
    };
    const unfinished = async () =>
      (await count(`select count(*) as n from deliveries where state <> 'CONFIRMED'`)) +
      (await count(`select count(*) as n from deployments where state <> 'CONFIRMED'`)) +
      (await count(`select count(*) as n from delivery_batches where state = 'SENT'`)) +
      (await count(`select count(*) as n from payments where state in ('VERIFIED', 'SETTLED')`)) +
      (await settlingButUsed());
    await pollUntil(async () => (await unfinished()) === 0, { timeoutMs: 60_000, stepMs: 250 });
    expect(await unfinished()).toBe(0);

    // The batches the crash caught went out as recorded — the same transaction, mined — and
    // carried their deliveries once: none was sent again on its own.
    for (const [i, b] of batchesAtCrash.entries()) {
      const receipt = await chain.getTransactionReceipt({ hash: b.tx_hash as Hex });
      // A batch that did not go out as recorded: say which, why the chain refused it, and what the restarted service logged.
      const why = receipt.status === 'success' ? '' : await whyReverted(i, b.tx_hash as Hex, receipt.blockNumber, databaseUrl, service.output(), chain);
      expect({ batch: b.batch_id, status: receipt.status }, why).toEqual({ batch: b.batch_id, status: 'success' });
      const carried = await queryDatabase<{ state: string; tx_hash: string; attempts: number }>(databaseUrl, `select state, tx_hash, attempts from deliveries where batch_id = '${b.batch_id}'`);
      expect(carried).toHaveLength(Number(b.size));
      for (const d of carried) expect({ state: d.state, txHash: d.tx_hash, attempts: Number(d.attempts) }).toEqual({ state: 'CONFIRMED', txHash: b.tx_hash, attempts: 1 });
    }
    expect(await count(`select count(*) as n from delivery_batches where state <> 'CONFIRMED'`)).toBe(0);

    // Every wallet holds on chain exactly what the ledger says; custody the rest.
    const [token] = await queryDatabase<{ address: string }>(databaseUrl, `select address from tokens where token_id = '${tokenId}'`);
    const positions = await queryDatabase<{ wallet: string; balance: string }>(databaseUrl, `select wallet, balance from positions where token_id = '${tokenId}'`);
    const balanceOf = (owner: string) => chain.readContract({ address: token!.address as Hex, abi: erc20Abi, functionName: 'balanceOf', args: [owner as Hex] });
    let held = 0n;
    for (const w of WALLETS) {
      const ledger = BigInt(positions.find((p) => p.wallet.toLowerCase() === w.address.toLowerCase())?.balance ?? 0);
      expect({ wallet: w.address, onChain: await balanceOf(w.address) }).toEqual({ wallet: w.address, onChain: ledger });
      held += ledger;
    }
    expect(held).toBeGreaterThan(0n);
    expect(await balanceOf(TREASURY)).toBe(SUPPLY - held);
    await service.stop();
  }, 180_000);
});

/** What a run that never reached its crash left: the burst's answers, the books' states, the service's last words. */
async function whereItStood(databaseUrl: string, answered: Record<number, number>, output: string, chain: PublicClient): Promise<string> {
  const states = async (table: string) =>
    JSON.stringify(await queryDatabase<{ state: string; n: number }>(databaseUrl, `select state, count(*) as n from ${table} group by state`).catch((e: Error) => e.message));
  const rows = async (sql: string) => JSON.stringify(await queryDatabase(databaseUrl, sql).catch((e: Error) => e.message));
  // The treasury signs settlements, deployments and deliveries from one nonce queue: a gap shows as pending > latest with nothing mined.
  const nonces = await Promise.all(
    (['latest', 'pending'] as const).map((blockTag) => chain.getTransactionCount({ address: TREASURY, blockTag }).catch((e: Error) => e.message)),
  );
  return [
    `no crash within 60 s; buys answered ${JSON.stringify(answered)}`,
    `payments ${await states('payments')}, deliveries ${await states('deliveries')}, delivery_batches ${await states('delivery_batches')}, tokens ${await rows('select state, deployment_state from tokens')}`,
    `deployments ${await rows('select state, tx_hash, attempts, last_error, created_at, updated_at from deployments')}`,
    `treasury nonce: latest ${nonces[0]}, pending ${nonces[1]}`,
    `service output (last 4,000 characters):\n${output.slice(-4_000)}`,
  ].join('\n');
}

/** Why a batch the crash caught was mined reverted: which it was, the chain's reason, the books' view of it, the service's last lines. */
async function whyReverted(index: number, hash: Hex, block: bigint, databaseUrl: string, output: string, chain: PublicClient): Promise<string> {
  const tx = await chain.getTransaction({ hash });
  const reason = await chain
    .call({ account: tx.from, to: tx.to!, data: tx.input, gas: tx.gas, blockNumber: block - 1n })
    .then(() => 'no revert when called at the block before', (e: Error) => e.message.split('\n').slice(0, 3).join(' '));
  const rows = async (sql: string) => JSON.stringify(await queryDatabase(databaseUrl, sql).catch((e: Error) => e.message));
  return [
    `batch #${index + 1} of the crash (${hash}, nonce ${tx.nonce}, gas ${tx.gas}, block ${block}) reverted: ${reason}`,
    `batches ${await rows('select batch_id, tx_hash, state, size, created_at from delivery_batches order by created_at')}`,
    `deployments ${await rows('select state, tx_hash, attempts, last_error from deployments')}`,
    `service output after the restart (last 4,000 characters):\n${output.slice(-4_000)}`,
  ].join('\n');
}
