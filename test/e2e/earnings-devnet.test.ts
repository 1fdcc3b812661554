/**
 * Creators and referrers earn on chain (docs/api.md "Fees and earnings"), on the embedded devnet,
 * paid with the official @x402/fetch client: a token created with a platform referrer, buys and a
 * sell from another wallet with and without a trade referrer, until earners pass the payout
 * threshold; every earner's USDC on chain grows by exactly what the books say, and the treasury,
 * the earners and the payers balance to the unit. The process dying between accrual and payout
 * pays once after the restart.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UnitOfWork } from '../../src/ports/unit-of-work.js';
import { testDatabases } from '../support/databases.js';
import { queryDatabase } from '../support/service-process.js';
import { startService, type RunningService } from '../../src/bootstrap/compose.js';
import { splitFee } from '../../src/domain/fees.js';
import { parseUsd } from '../../src/domain/money.js';
import { TESTNET } from '../../src/domain/network.js';
import { devnetTools } from '../support/devnet.js';
import { devnetConfig, drainWorkers as drain, json, ShiftableClock } from '../support/service.js';
import { devAccount, payingFetch } from '../support/x402-client.js';
import { signedSellBody } from '../support/onchain.js';

const TREASURY = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const [creator, trader, referrer, platform] = [devAccount(5), devAccount(6), devAccount(7), devAccount(9)];

const databases = testDatabases('earnings');

describe.each(databases)('fee shares paid on chain, on %s', (_name, openStore) => {
const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-earnings-'));
const clock = new ShiftableClock();
let service: RunningService;
let url: string;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  let uow: UnitOfWork;
  ({ uow, url, cleanup } = await openStore());
  const config = await devnetConfig(dataDir, {
    DEVNET_IDLE_BLOCK_SECONDS: '0',
  });
  service = await startService(config, { ports: { clock, uow } });
}, 60_000);

afterAll(async () => {
  await service?.stop();
  await cleanup?.();
  rmSync(dataDir, { recursive: true, force: true });
});

const usdc = (address: string) => devnetTools(service.devnet!).usdcBalance(TESTNET, address as `0x${string}`);
const sql = <T>(query: string) => queryDatabase<T>(url, query);
const big = (v: unknown) => BigInt(String(v));
function call(account: typeof creator, path: string, body: unknown) {
  return payingFetch(account)(`${service.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-wallet-address': account.address },
    body: JSON.stringify(body),
  });
}
const drainWorkers = (passes = 6) => drain(service, clock, passes);

  it('creator, platform referrer and trade referrer receive exactly their shares; everyone balances to the unit', async () => {
    const wallets = [creator, trader, referrer, platform, { address: TREASURY }].map((w) => w.address);
    const start = Object.fromEntries(await Promise.all(wallets.map(async (w) => [w, await usdc(w)] as const)));

    const token = (await json(await call(creator, '/tokens', { name: 'Earning', symbol: 'ERN', platformReferrer: platform.address }))).data;
    expect(token.platformReferrer).toBe(platform.address);
    await json(await call(trader, '/entrypoints/token_buy_usd', { tokenId: token.tokenId, usdAmount: '400', referrer: referrer.address }));
    await json(await call(trader, '/entrypoints/token_buy_usd', { tokenId: token.tokenId, usdAmount: '200' }));
    await drainWorkers(); // the tokens are delivered
    const sold = (await json(await call(trader, '/entrypoints/token_sell', await signedSellBody(service.url, trader, token.tokenId, '1000000', { referrer: referrer.address })))).data;
    expect(sold.trade.side).toBe('sell');
    await drainWorkers(); // earnings past the threshold are queued and paid, with the sell's proceeds

    // The books: each trade's fee split exactly as the rules say.
    const expected = new Map<string, bigint>();
    const trades = await sql<{ wallet: string; side: string; usd_amount: string; fee_usd: string }>(
      `select wallet, side, usd_amount, fee_usd from trades where token_id = '${token.tokenId}'`,
    );
    for (const row of trades) {
      const t = { wallet: row.wallet, side: row.side, usdAmount: big(row.usd_amount), feeUsd: big(row.fee_usd) };
      const viaReferrer = t.side === 'sell' || t.usdAmount === parseUsd('400');
      const split = splitFee(t.feeUsd, { creatorBps: 5000n, platformReferrerBps: 2000n, tradeReferrerBps: 1000n }, {
        payer: t.wallet,
        creator: creator.address,
        platformReferrer: platform.address,
        tradeReferrer: viaReferrer ? referrer.address : null,
      });
      for (const s of split.shares) expected.set(s.wallet, (expected.get(s.wallet) ?? 0n) + s.amount);
    }
    const earnings = (await sql<{ wallet: string; amount: string; payout_id: string | null }>(`select wallet, amount, payout_id from earnings`)).map((e) => ({
      wallet: e.wallet,
      amount: big(e.amount),
      payoutId: e.payout_id,
    }));
    const earned = (w: string) => earnings.filter((e) => e.wallet === w).reduce((a, e) => a + e.amount, 0n);
    for (const w of [creator.address, platform.address, referrer.address]) expect({ w, earned: earned(w) }).toEqual({ w, earned: expected.get(w) });
    expect(earned(creator.address)).toBeGreaterThan(parseUsd('1')); // past the threshold
    expect(earned(platform.address)).toBeGreaterThan(parseUsd('1'));
    expect(earned(referrer.address)).toBeLessThan(parseUsd('1')); // below: still pending

    // The chain: every payout confirmed, and each earner received exactly its paid shares.
    const payouts = (await sql<{ wallet: string; reason: string; amount: string; state: string }>(`select wallet, reason, amount, state from payouts`)).map((p) => ({
      ...p,
      amount: big(p.amount),
    }));
    expect(payouts.filter((p) => p.state !== 'CONFIRMED')).toEqual([]);
    const paidTo = (w: string, reasons: string[]) => payouts.filter((p) => p.wallet === w && reasons.includes(p.reason)).reduce((a, p) => a + p.amount, 0n);
    // Paid = the shares a payout claimed; the creator's share of the later sell waits for more.
    const claimed = (w: string) => earnings.filter((e) => e.wallet === w && e.payoutId !== null).reduce((a, e) => a + e.amount, 0n);
    expect(claimed(creator.address)).toBe(parseUsd('3'));
    expect(paidTo(creator.address, ['creator_fee'])).toBe(claimed(creator.address));
    expect(paidTo(platform.address, ['referral_fee'])).toBe(claimed(platform.address));
    expect(claimed(platform.address)).toBeGreaterThan(parseUsd('1'));
    expect(await usdc(platform.address)).toBe(start[platform.address]! + claimed(platform.address));
    expect(await usdc(referrer.address)).toBe(start[referrer.address]!);
    const creatorView = (await json(await fetch(`${service.url}/api/wallets/${creator.address}/earnings`))).data;
    expect({ paid: parseUsd(creatorView.paidUsd), pending: parseUsd(creatorView.pendingUsd) }).toEqual({
      paid: claimed(creator.address),
      pending: earned(creator.address) - claimed(creator.address),
    });
    const referrerView = (await json(await fetch(`${service.url}/api/wallets/${referrer.address}/earnings`))).data;
    expect(parseUsd(referrerView.pendingUsd)).toBe(earned(referrer.address));
    expect((await json(await fetch(`${service.url}/api/creators?sort=earnings`))).data.items[0]).toMatchObject({ wallet: creator.address, tokens: 1 });

    // Everyone balances: what each paid in less what was paid out to it, and the treasury the rest.
    const applied = (await sql<{ payer: string; amount: string }>(`select payer, amount from payments where state in ('APPLIED', 'REFUNDED')`)).map((p) => ({
      payer: p.payer,
      amount: big(p.amount),
    }));
    for (const w of [creator.address, trader.address, referrer.address, platform.address]) {
      const paidIn = applied.filter((p) => p.payer === w).reduce((a, p) => a + p.amount, 0n);
      expect({ w, usdc: await usdc(w) }).toEqual({ w, usdc: start[w]! - paidIn + paidTo(w, ['sell', 'refund', 'creator_fee', 'referral_fee']) });
    }
    const allIn = applied.reduce((a, p) => a + p.amount, 0n);
    const allOut = payouts.reduce((a, p) => a + p.amount, 0n);
    expect(await usdc(TREASURY)).toBe(start[TREASURY]! + allIn - allOut);
  }, 120_000);

  it('a dev buy: one payment of the create plus the buy, the curve’s first trade at the base fee, its tokens on chain in the creator’s wallet', async () => {
    const before = await usdc(creator.address);
    const res = await call(creator, '/tokens', { name: 'Dev Buy', symbol: 'DEVB', initialBuyUsd: '5' });
    expect(res.status).toBe(201);
    const created = (await json(res)).data;
    const buy = created.initialBuy;
    expect(buy).toMatchObject({ usdSpent: '5', feeUsd: '0.05', trade: { side: 'buy', venue: 'curve' } });
    expect(created.curve.tokensSold).toBe(buy.tokensReceived);
    expect(await usdc(creator.address)).toBe(before - parseUsd('5.01'));
    const trades = await sql<{ wallet: string }>(`select wallet from trades where token_id = '${created.tokenId}'`);
    expect(trades).toEqual([{ wallet: creator.address }]);
    await drainWorkers(); // deployed, then delivered
    const onChain = await service.devnet!.publicClient(TESTNET).readContract({
      address: created.address,
      abi: (await import('viem')).erc20Abi,
      functionName: 'balanceOf',
      args: [creator.address],
    });
    expect(onChain).toBe((await import('../../src/domain/money.js')).parseTokens(buy.tokensReceived));
    const refused = await fetch(`${service.url}/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-wallet-address': creator.address },
      body: JSON.stringify({ name: 'Too Much', symbol: 'MUCH', initialBuyUsd: '20000' }),
    });
    expect(refused.status).toBe(400);
    expect((await json(refused)).error.details.issues[0].path).toBe('usdAmount');
  }, 120_000);
});
