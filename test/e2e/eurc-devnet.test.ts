/**
 * EURC on the embedded devnet (docs/pricing.md), on SQLite and on PostgreSQL, paid with the official
 * @x402/fetch client and a selector preferring EURC, on the default devnet: the treasury (account
 * #0) starts with no EURC and holds only what it is paid. The 402 prices EURC through the
 * Chainlink adapter over the devnet's mock EUR/USD feed — the only quote source here, so that
 * moving the feed on chain moves the live price (beside the fixed source, a move of one source is
 * an outlier, not a price) — and the EURC contract at its canonical address moves exactly the
 * offered amount. A sell whose $0.01 fee is paid in EURC is paid out in USDC (decision 0021), also
 * when the process dies right after the pull is mined; a held quote the feed moved away from is
 * refused before settlement. After each case the chain equals the books, in USDC and in EURC.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_BALANCE, TREASURY_FLOAT, USDC_ABI } from '../../src/adapters/chain/anvil/devnet-constants.js';
import { startService, type RunningService } from '../../src/bootstrap/compose.js';
import { parseUsd } from '../../src/domain/money.js';
import { NETWORKS, TESTNET, type PaymentAsset } from '../../src/domain/network.js';
import { crashOnceAfterMined } from '../support/crash-after-mined.js';
import type { UnitOfWork } from '../../src/ports/unit-of-work.js';
import { devnetTools } from '../support/devnet.js';
import { signedSellBody } from '../support/onchain.js';
import { testDatabases } from '../support/databases.js';
import { queryDatabase } from '../support/service-process.js';
import { devnetConfig, drainWorkers as drain, json, ShiftableClock } from '../support/service.js';
import { decodeBase64Json, devAccount, eurcOnly, isEurcOffer, payingFetch, preferEurc, signPayment } from '../support/x402-client.js';

const TREASURY = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

const databases = testDatabases('eurc');


describe.each(databases)('EURC on the devnet, on %s', (_name, openStore) => {
  const clock = new ShiftableClock();
  const fault = { armed: false };
  const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-eurc-'));
  const wallet = devAccount(8); // a testnet wallet
  const seller = devAccount(9); // another
  const crashed = devAccount(7); // another
  let service: RunningService;
  let uow: UnitOfWork;
  let url: string;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    ({ uow, url, cleanup } = await openStore());
    const config = await devnetConfig(dataDir, {
      QUOTE_PROVIDERS: 'chainlink',
      QUOTE_CACHE_SECONDS: '0',
      // Sellers here created their tokens: their creator fee shares stay unpaid, so their USDC
      // moves only by their own payments and proceeds.
      EARNINGS_PAYOUT_MIN_USD: '1000000',
    });
    service = await startService(config, { ports: { clock, uow }, wrapTokenIssuer: (issuer) => crashOnceAfterMined(issuer, fault, 'the pull') });
  }, 60_000);

  afterAll(async () => {
    await service?.stop();
    await cleanup?.();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const balance = (asset: PaymentAsset, address: string) => devnetTools(service.devnet!).assetBalance(TESTNET, asset, address as Hex);
  const eurc = (address: string) => balance('EURC', address);
  const usdc = (address: string) => balance('USDC', address);
  const call = (path: string, body: unknown, f: typeof fetch, account: PrivateKeyAccount = wallet, headers: Record<string, string> = {}) =>
    f(`${service.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-wallet-address': account.address, ...headers },
      body: JSON.stringify(body),
    });
  const sql = <T>(query: string) => queryDatabase<T>(url, query);
  const trades = async () => Number((await sql<{ n: number }>(`select count(*) as n from trades`))[0]!.n);
  const paymentsOf = (payer: string) =>
    sql<{ resource: string; asset: string; amount: string; state: string; nonce_lower: string }>(
      `select resource, asset, amount, state, nonce_lower from payments where lower(payer) = '${payer.toLowerCase()}'`,
    );

  /** Worker passes with the clock moved past each wait (poll interval, backoff; 31 s: the reconciler's grace). */
  const drainWorkers = (passes = 4, stepMs = 2_000) => drain(service, clock, passes, stepMs);

  /**
   * Books = chain, per asset: every wallet holds its demo balance less what its charged payments
   * (applied or refunded) took plus what its payouts sent, and the treasury (which started with
   * its USDC float and no EURC) holds that plus what it was paid less what it paid out. Every
   * payout is confirmed.
   */
  async function expectBooksEqualChain() {
    const payments = await sql<{ payer: string; asset: string; amount: string }>(
      `select payer, asset, amount from payments where network = '${TESTNET}' and state in ('APPLIED', 'REFUNDED')`,
    );
    const payouts = await sql<{ wallet: string; asset: string; amount: string; state: string }>(`select wallet, asset, amount, state from payouts where network = '${TESTNET}'`);
    expect(payouts.filter((p) => p.state !== 'CONFIRMED')).toEqual([]);
    const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
    const charged = (asset: PaymentAsset, w?: string) =>
      payments.filter((p) => p.asset === asset && (!w || same(p.payer, w))).reduce((s, p) => s + BigInt(p.amount), 0n);
    const paidOut = (asset: PaymentAsset, w?: string) =>
      payouts.filter((p) => p.asset === asset && (!w || same(p.wallet, w))).reduce((s, p) => s + BigInt(p.amount), 0n);
    for (const asset of ['USDC', 'EURC'] as const) {
      for (const w of [wallet.address, seller.address, crashed.address]) {
        expect({ asset, wallet: w, onChain: await balance(asset, w) }).toEqual({ asset, wallet: w, onChain: DEMO_BALANCE - charged(asset, w) + paidOut(asset, w) });
      }
      const float = asset === 'USDC' ? TREASURY_FLOAT : 0n;
      expect({ asset, treasury: await balance(asset, TREASURY) }).toEqual({ asset, treasury: float + charged(asset) - paidOut(asset) });
    }
  }

  /** A token of `account`'s, bought for `usdAmount` in USDC and delivered to its wallet. */
  async function holding(account: PrivateKeyAccount, symbol: string, usdAmount: string) {
    const payUsdc = payingFetch(account); // the first offer: USDC
    const tokenId = (await json(await call('/entrypoints/token_create', { name: `Euro ${symbol}`, symbol }, payUsdc, account))).data.tokenId as string;
    const bought = (await json(await call('/entrypoints/token_buy_usd', { tokenId, usdAmount }, payUsdc, account))).data;
    await drainWorkers(); // deployed and delivered: the tokens are in the wallet
    return { tokenId, tokens: bought.tokensReceived as string };
  }

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
    const pay = payingFetch(wallet, fetch, preferEurc);
    // The 402 prices EURC from the devnet's mock EUR/USD feed (1.08).
    const challenge = await call('/entrypoints/token_create', { name: 'Euro Cat', symbol: 'ECAT' }, fetch);
    const required = decodeBase64Json<any>(challenge.headers.get('payment-required'));
    expect(required.accepts.filter((a: any) => a.scheme === 'exact').map((a: any) => [a.asset, a.amount])).toEqual([
      [NETWORKS[TESTNET].usdc, '10000'],
      [NETWORKS[TESTNET].assets.EURC.address, '9260'],
    ]);

    const eurcBefore = await eurc(wallet.address);
    const usdcBefore = await usdc(wallet.address);
    const treasuryBefore = await eurc(TREASURY);
    const created = await json(await call('/entrypoints/token_create', { name: 'Euro Cat', symbol: 'ECAT' }, pay));
    const tokenId = created.data.tokenId;
    const buy = (await json(await call('/entrypoints/token_buy_usd', { tokenId, usdAmount: '5' }, pay))).data;
    expect(buy.usdSpent).toBe('5');
    const paidEurc = 9_260n + 4_629_630n; // ceil(0.01 / 1.08) + ceil(5 / 1.08), in units
    expect(await eurc(wallet.address)).toBe(eurcBefore - paidEurc);
    expect(await usdc(wallet.address)).toBe(usdcBefore);
    expect(await eurc(TREASURY)).toBe(treasuryBefore + paidEurc);
    expect(await uow.run((s) => s.payments.get(buy.payment.paymentId))).toMatchObject({ asset: 'EURC', amount: 4_629_630n, usdValue: 5_000_000n, state: 'APPLIED' });
    await drainWorkers();
    await expectBooksEqualChain();
  });

  it('a sell whose $0.01 fee is paid in EURC pays the seller its proceeds in USDC, to the unit — more than all the EURC the treasury holds', async () => {
    const { tokenId, tokens } = await holding(seller, 'ESEL', '1000');
    const usdcBefore = await usdc(seller.address);
    const eurcBefore = await eurc(seller.address);
    const treasuryEurc = await eurc(TREASURY);
    const res = await call('/entrypoints/token_sell', await signedSellBody(service.url, seller, tokenId, tokens), payingFetch(seller, fetch, preferEurc), seller);
    expect(res.status).toBe(200);
    const sold = (await json(res)).data;
    const proceeds = parseUsd(sold.usdReceived);
    expect(proceeds).toBeGreaterThan(treasuryEurc); // a payout in EURC could never have been sent
    expect(sold.payout).toMatchObject({ asset: 'USDC', amount: sold.usdReceived, reason: 'sell', state: 'PENDING' });
    const fee = (await paymentsOf(seller.address)).filter((p) => p.resource === 'token_sell');
    expect(fee).toEqual([expect.objectContaining({ asset: 'EURC', amount: '9260', state: 'APPLIED' })]);

    await drainWorkers();
    const payout = (await json(await fetch(`${service.url}/api/payouts/${sold.payout.payoutId}`))).data;
    expect(payout).toMatchObject({ asset: 'USDC', amount: sold.usdReceived, state: 'CONFIRMED' });
    expect(await usdc(seller.address)).toBe(usdcBefore + proceeds);
    expect(await eurc(seller.address)).toBe(eurcBefore - 9_260n);
    await expectBooksEqualChain();
  });

  it('the process dies right after the pull of an EURC-fee sell is mined: the reconciler books it and pays USDC exactly once', async () => {
    const { tokenId, tokens } = await holding(crashed, 'ECRS', '50');
    const usdcBefore = await usdc(crashed.address);
    const eurcBefore = await eurc(crashed.address);
    fault.armed = true;
    const res = await call('/entrypoints/token_sell', await signedSellBody(service.url, crashed, tokenId, tokens), payingFetch(crashed, fetch, preferEurc), crashed);
    expect(res.status).toBe(202); // the answer died with the "process"
    expect(fault.armed).toBe(false);
    await drainWorkers(4, 31_000); // the reconciler applies it (the recorded pull is found mined), the payout worker pays

    const sells = (await json(await fetch(`${service.url}/api/tokens/${tokenId}/trades`))).data.items.filter((t: { side: string }) => t.side === 'sell');
    expect(sells).toHaveLength(1);
    const proceeds = parseUsd(sells[0].usdAmount) - parseUsd(sells[0].feeUsd);
    const payouts = await sql<{ asset: string; amount: string; state: string }>(
      `select asset, amount, state from payouts where lower(wallet) = '${crashed.address.toLowerCase()}' and reason = 'sell'`,
    );
    expect(payouts).toEqual([{ asset: 'USDC', amount: String(proceeds), state: 'CONFIRMED' }]);
    expect(await usdc(crashed.address)).toBe(usdcBefore + proceeds);
    expect(await eurc(crashed.address)).toBe(eurcBefore - 9_260n);
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
    const tradesBefore = await trades();

    await devnetTools(service.devnet!).setFeedRound(TESTNET, 'EURC', 54_000_000n); // EUR/USD halves: that EURC is worth $50 now
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
      expect((await paymentsOf(wallet.address)).some((p) => p.nonce_lower === nonce.toLowerCase())).toBe(false);
      expect(await trades()).toBe(tradesBefore);
      await expectBooksEqualChain();
    } finally {
      await devnetTools(service.devnet!).setFeedRound(TESTNET, 'EURC', 108_000_000n);
    }
  });
});
