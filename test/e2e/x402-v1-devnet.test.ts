/**
 * x402 v1 on the embedded devnet, on the same books as v2 (decision 0046): x402-fetch 1.2.0 and
 * x402-axios 0.7.2, unchanged, create a token and buy it, settled through the in-process
 * facilitator's v1 path (@x402/evm's ExactEvmSchemeV1) on the real EIP-3009 USDC; @x402/fetch (v2)
 * pays beside them as before. Each wallet's USDC moves by exactly the prices; a replayed v1
 * payment is applied once; a v1 payment whose request dies after settlement is applied by the
 * reconciler exactly once; then the books (SQLite) equal the chain.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PublicClient } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../src/bootstrap/compose.js';
import { parseUsd } from '../../src/domain/money.js';
import { TESTNET } from '../../src/domain/network.js';
import { expectBooksEqualChain, TREASURY, usdcOf } from '../support/books.js';
import { testDatabases } from '../support/databases.js';
import { queryDatabase } from '../support/service-process.js';
import { devnetConfig, drainWorkers as drain, json, ShiftableClock } from '../support/service.js';
import { devAccount, devKey, payingFetch } from '../support/x402-client.js';
import { axios, createSigner, decodeXPaymentResponse, withPaymentInterceptor, wrapFetchWithPayment } from '../v1-clients/index.js';

const openStore = testDatabases('x402v1')[0]![1]; // SQLite: the pipeline is the same on both stores
const clock = new ShiftableClock();
const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-x402v1-'));
const fetchWallet = devAccount(7); // x402-fetch
const axiosWallet = devAccount(8); // x402-axios
const v2Wallet = devAccount(9); // @x402/fetch
const WALLETS = [fetchWallet.address, axiosWallet.address, v2Wallet.address];
let service: RunningService;
let chain: PublicClient;
let databaseUrl: string;
let cleanup: () => Promise<void>;
let crashAfterSettle = false;
const usdcBefore = new Map<string, bigint>();
let treasuryBefore: bigint;

beforeAll(async () => {
  const store = await openStore();
  databaseUrl = store.url;
  cleanup = store.cleanup;
  // Creators' fee shares stay owed: each wallet's USDC moves only by its own payments.
  const config = await devnetConfig(dataDir, { EARNINGS_PAYOUT_MIN_USD: '1000000' });
  service = await startService(config, {
    ports: { clock, uow: store.uow },
    hooks: {
      afterSettle: async () => {
        if (crashAfterSettle) {
          crashAfterSettle = false;
          throw new Error('simulated crash between settlement and apply');
        }
      },
    },
  });
  chain = service.devnet!.publicClient(TESTNET) as PublicClient;
  for (const w of WALLETS) usdcBefore.set(w, await usdcOf(chain, w));
  treasuryBefore = await usdcOf(chain, TREASURY);
}, 60_000);

afterAll(async () => {
  await service?.stop();
  await cleanup?.();
  rmSync(dataDir, { recursive: true, force: true });
});

const drainWorkers = (passes = 4, stepMs = 2_000) => drain(service, clock, passes, stepMs);
const spent = async (wallet: string) => usdcBefore.get(wallet)! - (await usdcOf(chain, wallet));
const sql = <T>(query: string) => queryDatabase<T>(databaseUrl, query);

/** x402-fetch over a fetch that remembers the X-PAYMENT headers it sent. */
async function v1Fetch(sent: string[]): Promise<typeof fetch> {
  const recording: typeof fetch = (input, init) => {
    const header = ((init?.headers ?? {}) as Record<string, string>)['X-PAYMENT'];
    if (header) sent.push(header);
    return fetch(input, init);
  };
  return wrapFetchWithPayment(recording, await createSigner('base-sepolia', devKey(7)), parseUsd('10')) as typeof fetch;
}
const post = (f: typeof fetch, path: string, body: unknown, headers: Record<string, string> = {}) =>
  f(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

describe('x402 v1 clients pay on the devnet, on the books v2 keeps', () => {
  const sent: string[] = [];
  let tokenId: string;

  it('x402-fetch creates a token and buys it: settled on chain, exactly the prices moved', async () => {
    const pay = await v1Fetch(sent);
    const created = await post(pay, '/tokens', { name: 'Legacy Fetch', symbol: 'LFETCH' }, { 'x-wallet-address': fetchWallet.address });
    expect(created.status).toBe(201);
    tokenId = (await json(created)).data.tokenId;
    const settlement = decodeXPaymentResponse(created.headers.get('x-payment-response')!);
    expect(settlement).toMatchObject({ success: true, network: 'base-sepolia', payer: fetchWallet.address });
    const receipt = await chain.getTransactionReceipt({ hash: settlement.transaction as `0x${string}` });
    expect(receipt.status).toBe('success');

    const bought = await post(pay, '/entrypoints/token_buy_usd', { tokenId, usdAmount: '5' }, { 'x-wallet-address': fetchWallet.address });
    expect(bought.status).toBe(200);
    expect((await json(bought)).data).toMatchObject({ usdSpent: '5', payment: { network: TESTNET, payer: fetchWallet.address } });
    expect(await spent(fetchWallet.address)).toBe(10_000n + 5_000_000n);
  });

  it('the same X-PAYMENT again is the first answer: nothing moves, one trade', async () => {
    const before = await usdcOf(chain, fetchWallet.address);
    const again = await post(fetch, '/entrypoints/token_buy_usd', { tokenId, usdAmount: '5' }, { 'X-PAYMENT': sent.at(-1)! });
    expect(again.status).toBe(200);
    expect(await usdcOf(chain, fetchWallet.address)).toBe(before);
    const trades = await sql<{ n: number }>(`select count(*) as n from trades where token_id = '${tokenId}'`);
    expect(Number(trades[0]!.n)).toBe(1);
  });

  it('x402-axios creates a token and buys it from a 402 offering both networks', async () => {
    const client = withPaymentInterceptor(axios.create({ baseURL: service.url }), await createSigner('base-sepolia', devKey(8)));
    const created = await client.post('/entrypoints/token_create', { name: 'Legacy Axios', symbol: 'LAXIOS' });
    expect(created.status).toBe(201);
    expect(decodeXPaymentResponse(created.headers['x-payment-response'])).toMatchObject({ success: true, network: 'base-sepolia', payer: axiosWallet.address });
    const bought = await client.post('/entrypoints/token_buy_usd', { tokenId: created.data.data.tokenId, usdAmount: '2.5' });
    expect(bought.status).toBe(200);
    expect(await spent(axiosWallet.address)).toBe(10_000n + 2_500_000n);
  });

  it('@x402/fetch (v2) still pays as before', async () => {
    const pay = payingFetch(v2Wallet);
    const created = await post(pay, '/tokens', { name: 'Current', symbol: 'CURV2' }, { 'x-wallet-address': v2Wallet.address });
    expect(created.status).toBe(201);
    expect(created.headers.get('payment-response')).toEqual(expect.any(String));
    expect(created.headers.get('x-payment-response')).toBeNull();
    const bought = await post(pay, '/entrypoints/token_buy_usd', { tokenId: (await json(created)).data.tokenId, usdAmount: '1' }, { 'x-wallet-address': v2Wallet.address });
    expect(bought.status).toBe(200);
    expect(await spent(v2Wallet.address)).toBe(10_000n + 1_000_000n);
  });

  it('a v1 payment whose request dies after settlement is applied by the reconciler, once', async () => {
    crashAfterSettle = true;
    const res = await post(await v1Fetch(sent), '/entrypoints/token_buy_usd', { tokenId, usdAmount: '1.25' }, { 'x-wallet-address': fetchWallet.address });
    expect(res.status).toBe(500);
    const [payment] = await sql<{ payment_id: string; state: string }>(
      `select payment_id, state from payments where lower(payer) = '${fetchWallet.address.toLowerCase()}' and amount = '1250000'`,
    );
    expect(payment!.state).toBe('SETTLED');
    clock.offsetMs += 31_000; // past the reconciler's grace
    await drainWorkers();
    const after = await sql<{ state: string }>(`select state from payments where payment_id = '${payment!.payment_id}'`);
    expect(after[0]!.state).toBe('APPLIED');
    const trades = await sql<{ n: number }>(`select count(*) as n from trades where payment_id = '${payment!.payment_id}'`);
    expect(Number(trades[0]!.n)).toBe(1);
    expect(await spent(fetchWallet.address)).toBe(10_000n + 5_000_000n + 1_250_000n);
  });

  it('the books equal the chain: every wallet, the treasury, every token delivered', async () => {
    await drainWorkers();
    await expectBooksEqualChain({ databaseUrl, chain, wallets: WALLETS, usdcBefore, treasuryBefore });
  });
});
