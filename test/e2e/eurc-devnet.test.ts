/**
 * EURC on the embedded devnet (SPEC §15), paid with the official @x402/fetch client and a selector
 * preferring EURC, on the default devnet: the treasury (account #0) starts with no EURC and holds
 * only what it is paid. The 402 prices EURC through the Chainlink adapter over the devnet's mock
 * EUR/USD feed — the only quote source here, so that moving the feed on chain moves the live
 * price (beside the fixed source, a move of one source is an outlier, not a price) — and the EURC
 * contract at its canonical address moves exactly the offered amount. A sell whose $0.01 fee is
 * paid in EURC is paid out in USDC (decision 0021); a held quote the feed moved away from is
 * refused before settlement. After each case the chain equals the books, in USDC and in EURC.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_BALANCE, USDC_ABI } from '../../src/adapters/chain/anvil/anvil-devnet.js';
import { MemoryUnitOfWork } from '../../src/adapters/persistence/memory/memory-unit-of-work.js';
import { startService, type RunningService } from '../../src/bootstrap/compose.js';
import { loadConfig } from '../../src/app/config.js';
import { parseUsd } from '../../src/domain/money.js';
import { NETWORKS, TESTNET, type PaymentAsset } from '../../src/domain/network.js';
import { freePorts } from '../support/free-ports.js';
import { signedSellBody } from '../support/onchain.js';
import { json, ShiftableClock } from '../support/service.js';
import { decodeBase64Json, devAccount, eurcOnly, isEurcOffer, payingFetch, preferEurc, signPayment } from '../support/x402-client.js';

const TREASURY = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-eurc-'));
const clock = new ShiftableClock();
const uow = new MemoryUnitOfWork();
const wallet = devAccount(8); // a testnet wallet
const seller = devAccount(9); // another
let service: RunningService;

beforeAll(async () => {
  const config = loadConfig({
    PORT: '0',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_FREE_PER_MINUTE: '0',
    WORKERS: 'false',
    DATA_DIR: dataDir,
    DEVNET_PORT: String(await freePorts()),
    QUOTE_PROVIDERS: 'chainlink',
    QUOTE_CACHE_SECONDS: '0',
  });
  service = await startService(config, { clock, uow });
}, 60_000);

afterAll(async () => {
  await service.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const balance = (asset: PaymentAsset, address: string) => service.devnet!.assetBalance(TESTNET, asset, address as Hex);
const eurc = (address: string) => balance('EURC', address);
const usdc = (address: string) => balance('USDC', address);
const pay = payingFetch(wallet, fetch, preferEurc);
const call = (path: string, body: unknown, f: typeof fetch = pay, account: PrivateKeyAccount = wallet, headers: Record<string, string> = {}) =>
  f(`${service.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-wallet-address': account.address, ...headers },
    body: JSON.stringify(body),
  });

async function drainWorkers(passes = 4) {
  for (let i = 0; i < passes; i++) {
    clock.offsetMs += 2_000;
    await service.runWorkers();
  }
}

/**
 * Books = chain, per asset: every wallet holds its demo balance less what its charged payments
 * (applied or refunded) took plus what its payouts sent, and the treasury (which started with
 * none of either) holds what it was paid less what it paid out. Every payout is confirmed.
 */
async function expectBooksEqualChain() {
  const payments = [...uow.db.payments.values()].filter((p) => p.network === TESTNET && ['APPLIED', 'REFUNDED'].includes(p.state));
  const payouts = [...uow.db.payouts.values()].filter((p) => p.network === TESTNET);
  expect(payouts.filter((p) => p.state !== 'CONFIRMED')).toEqual([]);
  const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  const charged = (asset: PaymentAsset, w?: string) => payments.filter((p) => p.asset === asset && (!w || same(p.payer, w))).reduce((s, p) => s + p.amount, 0n);
  const paidOut = (asset: PaymentAsset, w?: string) => payouts.filter((p) => p.asset === asset && (!w || same(p.wallet, w))).reduce((s, p) => s + p.amount, 0n);
  for (const asset of ['USDC', 'EURC'] as const) {
    for (const w of [wallet.address, seller.address]) {
      expect({ asset, wallet: w, onChain: await balance(asset, w) }).toEqual({ asset, wallet: w, onChain: DEMO_BALANCE - charged(asset, w) + paidOut(asset, w) });
    }
    expect({ asset, treasury: await balance(asset, TREASURY) }).toEqual({ asset, treasury: charged(asset) - paidOut(asset) });
  }
}

describe('EURC on the devnet', () => {
  it('the demo wallets hold 10,000 EURC at the canonical address, whose EIP-712 domain is EURC / 2; the treasury holds none', async () => {
    expect(await eurc(wallet.address)).toBe(10_000_000_000n);
    expect(await eurc(TREASURY)).toBe(0n);
    const client = service.devnet!.publicClient(TESTNET);
    const abi = [
      { type: 'function', name: 'name', stateMutability: 'view', inputs: [], outputs: [{ type: 'string' }] },
      { type: 'function', name: 'version', stateMutability: 'view', inputs: [], outputs: [{ type: 'string' }] },
    ] as const;
    const address = NETWORKS[TESTNET].assets.EURC.address;
    expect(await client.readContract({ address, abi, functionName: 'name' })).toBe('EURC');
    expect(await client.readContract({ address, abi, functionName: 'version' })).toBe('2');
  });

  it('a wallet pays in EURC at the held quote rounded up; the USD value is booked', async () => {
    // The 402 prices EURC from the devnet's mock EUR/USD feed (1.08).
    const challenge = await call('/entrypoints/token_create', { name: 'Euro Cat', symbol: 'ECAT' }, fetch);
    const required = decodeBase64Json<any>(challenge.headers.get('payment-required'));
    expect(required.accepts.map((a: any) => [a.asset, a.amount])).toEqual([
      [NETWORKS[TESTNET].usdc, '10000'],
      [NETWORKS[TESTNET].assets.EURC.address, '9260'],
    ]);

    const eurcBefore = await eurc(wallet.address);
    const usdcBefore = await usdc(wallet.address);
    const treasuryBefore = await eurc(TREASURY);
    const created = await json(await call('/entrypoints/token_create', { name: 'Euro Cat', symbol: 'ECAT' }));
    const tokenId = created.data.tokenId;
    const buy = (await json(await call('/entrypoints/token_buy_usd', { tokenId, usdAmount: '5' }))).data;
    expect(buy.usdSpent).toBe('5');
    const paidEurc = 9_260n + 4_629_630n; // ceil(0.01 / 1.08) + ceil(5 / 1.08), in units
    expect(await eurc(wallet.address)).toBe(eurcBefore - paidEurc);
    expect(await usdc(wallet.address)).toBe(usdcBefore);
    expect(await eurc(TREASURY)).toBe(treasuryBefore + paidEurc);
    expect(uow.db.payments.get(buy.payment.paymentId)).toMatchObject({ asset: 'EURC', amount: 4_629_630n, usdValue: 5_000_000n, state: 'APPLIED' });
    await drainWorkers();
    await expectBooksEqualChain();
  });

  it('a sell whose $0.01 fee is paid in EURC pays the seller its proceeds in USDC, to the unit — more than all the EURC the treasury holds', async () => {
    const payUsdc = payingFetch(seller); // the first offer: USDC
    const payEurc = payingFetch(seller, fetch, preferEurc);
    const tokenId = (await json(await call('/entrypoints/token_create', { name: 'Euro Sell', symbol: 'ESEL' }, payUsdc, seller))).data.tokenId;
    const bought = (await json(await call('/entrypoints/token_buy_usd', { tokenId, usdAmount: '1000' }, payUsdc, seller))).data;
    await drainWorkers(); // deployed and delivered: the tokens are in the wallet

    const usdcBefore = await usdc(seller.address);
    const eurcBefore = await eurc(seller.address);
    const treasuryEurc = await eurc(TREASURY);
    const body = await signedSellBody(service.url, seller, tokenId, bought.tokensReceived);
    const res = await call('/entrypoints/token_sell', body, payEurc, seller);
    expect(res.status).toBe(200);
    const sold = (await json(res)).data;
    const proceeds = parseUsd(sold.usdReceived);
    expect(proceeds).toBeGreaterThan(treasuryEurc); // a payout in EURC could never have been sent
    expect(sold.payout).toMatchObject({ asset: 'USDC', amount: sold.usdReceived, reason: 'sell', state: 'PENDING' });
    const fee = [...uow.db.payments.values()].find((p) => p.resource === 'token_sell' && p.payer === seller.address)!;
    expect(fee).toMatchObject({ asset: 'EURC', amount: 9_260n, state: 'APPLIED' });

    await drainWorkers();
    const payout = (await json(await fetch(`${service.url}/api/payouts/${sold.payout.payoutId}`))).data;
    expect(payout).toMatchObject({ asset: 'USDC', amount: sold.usdReceived, state: 'CONFIRMED' });
    expect(await usdc(seller.address)).toBe(usdcBefore + proceeds);
    expect(await eurc(seller.address)).toBe(eurcBefore - 9_260n);
    await expectBooksEqualChain();
  });

  it('EUR/USD moved on chain inside the hold, past the spread bound: the EURC payment is refused before settlement, nothing charged, the live price offered', async () => {
    const tokenId = (await json(await call('/entrypoints/token_create', { name: 'Euro Move', symbol: 'EMOV' }, payingFetch(wallet)))).data.tokenId;
    await drainWorkers();
    const body = { tokenId, usdAmount: '100' };
    const challenge = await call('/entrypoints/token_buy_usd', body, fetch);
    const required = decodeBase64Json<any>(challenge.headers.get('payment-required'));
    expect(required.accepts.find(isEurcOffer).amount).toBe('92592593'); // ceil(100 / 1.08)
    const signature = await signPayment(wallet, eurcOnly(required));
    const { nonce } = decodeBase64Json<any>(signature).payload.authorization;
    const eurcBefore = await eurc(wallet.address);
    const treasuryBefore = await eurc(TREASURY);
    const trades = uow.db.trades.length;

    await service.devnet!.setFeedRound(TESTNET, 'EURC', 54_000_000n); // EUR/USD halves: that EURC is worth $50 now
    try {
      const res = await call('/entrypoints/token_buy_usd', body, fetch, wallet, { 'payment-signature': signature });
      expect(res.status).toBe(402);
      const error = (await json(res)).error;
      expect(error).toMatchObject({ code: 'PAYMENT_INVALID', details: { reason: 'quote_moved', heldPrice: '1.08', livePrice: '0.54', maxSpreadBps: 100 } });
      const fresh = decodeBase64Json<any>(res.headers.get('payment-required'));
      expect(fresh.accepts.find(isEurcOffer).amount).toBe('185185186'); // ceil(100 / 0.54)

      // Nothing was settled: the authorization is unused on chain, no EURC moved, nothing booked.
      const used = await service.devnet!.publicClient(TESTNET).readContract({
        address: NETWORKS[TESTNET].assets.EURC.address,
        abi: USDC_ABI,
        functionName: 'authorizationState',
        args: [wallet.address, nonce as Hex],
      });
      expect(used).toBe(false);
      expect(await eurc(wallet.address)).toBe(eurcBefore);
      expect(await eurc(TREASURY)).toBe(treasuryBefore);
      expect([...uow.db.payments.values()].some((p) => p.nonce === nonce.toLowerCase())).toBe(false);
      expect(uow.db.trades.length).toBe(trades);
      await expectBooksEqualChain();
    } finally {
      await service.devnet!.setFeedRound(TESTNET, 'EURC', 108_000_000n);
    }
  });
});
