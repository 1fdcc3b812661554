/**
 * Creator splits and a vested dev buy on the embedded devnet (docs/api.md "Fees and earnings",
 * decisions 0078 and 0079), paid with the official @x402/fetch client, on SQLite and PostgreSQL:
 * a token split 60/30/10 pays each wallet its part of every trade on chain, to the unit, and its
 * creator nothing; a vested dev buy shows its tokens locked, refuses their sale before the cliff
 * (409 before any 402), releases them on schedule to the creator's wallet on chain (the service's
 * clock moved), and then sells.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { erc20Abi, getAddress, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../src/bootstrap/compose.js';
import { splitFee } from '../../src/domain/fees.js';
import { parseTokens } from '../../src/domain/money.js';
import { TESTNET } from '../../src/domain/network.js';
import type { UnitOfWork } from '../../src/ports/unit-of-work.js';
import { testDatabases } from '../support/databases.js';
import { devnetTools } from '../support/devnet.js';
import { signedSellBody } from '../support/onchain.js';
import { devnetConfig, drainWorkers as drain, json, ShiftableClock } from '../support/service.js';
import { queryDatabase } from '../support/service-process.js';
import { devAccount, payingFetch } from '../support/x402-client.js';

const [creator, trader] = [devAccount(5), devAccount(6)];
// Wallets with nothing on the devnet: what they hold is what they were paid.
const TEAM = ['0x5ea1000000000000000000000000000000000001', '0x5ea1000000000000000000000000000000000002', '0x5ea1000000000000000000000000000000000003'].map((a) => getAddress(a)) as [string, string, string];
const SPLITS = [
  { wallet: TEAM[0], bps: 6000 },
  { wallet: TEAM[1], bps: 3000 },
  { wallet: TEAM[2], bps: 1000 },
];

describe.each(testDatabases('economy'))('creator splits and a vested dev buy on the devnet, on %s', (_name, openStore) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-economy-'));
  const clock = new ShiftableClock();
  let service: RunningService;
  let url: string;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    let uow: UnitOfWork;
    ({ uow, url, cleanup } = await openStore());
    const config = await devnetConfig(dataDir, { DEVNET_IDLE_BLOCK_SECONDS: '0', EARNINGS_PAYOUT_MIN_USD: '0.01' });
    service = await startService(config, { ports: { clock, uow } });
  }, 60_000);

  afterAll(async () => {
    await service?.stop();
    await cleanup?.();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const usdc = (address: string) => devnetTools(service.devnet!).usdcBalance(TESTNET, address as Hex);
  const tokensOf = (token: string, owner: string) =>
    service.devnet!.publicClient(TESTNET).readContract({ address: token as Hex, abi: erc20Abi, functionName: 'balanceOf', args: [owner as Hex] });
  const sql = <T>(query: string) => queryDatabase<T>(url, query);
  const call = (account: typeof creator, path: string, body: unknown, paying = true) =>
    (paying ? payingFetch(account) : fetch)(`${service.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-wallet-address': account.address },
      body: JSON.stringify(body),
    });

  it('60/30/10: each wallet is paid its part of every trade on chain, to the unit; the creator earns nothing', async () => {
    const token = (await json(await call(creator, '/tokens', { name: 'Team', symbol: 'TEAM', creatorSplits: SPLITS }))).data;
    expect(token.creatorSplits).toEqual(SPLITS);
    for (const usd of ['300', '41.37', '7']) expect((await call(trader, '/entrypoints/token_buy_usd', { tokenId: token.tokenId, usdAmount: usd })).status).toBe(200);
    await drain(service, clock, 6); // deployed, delivered, the shares paid
    const trades = await sql<{ wallet: string; fee_usd: string }>(`select wallet, fee_usd from trades where token_id = '${token.tokenId}'`);
    expect(trades).toHaveLength(3);
    const expected = new Map<string, bigint>();
    for (const t of trades) {
      const split = splitFee(BigInt(t.fee_usd), { creatorBps: 5000n, platformReferrerBps: 2000n, tradeReferrerBps: 1000n }, { payer: t.wallet, creator: creator.address, creatorSplits: SPLITS, platformReferrer: null, tradeReferrer: null });
      for (const s of split.shares) expected.set(s.wallet, (expected.get(s.wallet) ?? 0n) + s.amount);
    }
    expect([...expected.keys()]).toEqual([...TEAM]);
    for (const w of TEAM) expect({ w, onChain: await usdc(w) }).toEqual({ w, onChain: expected.get(w) });
    const payouts = await sql<{ wallet: string; reason: string; state: string }>(`select wallet, reason, state from payouts where reason = 'creator_fee'`);
    expect(payouts.map((p) => [p.wallet, p.reason, p.state]).sort()).toEqual(TEAM.map((w) => [w, 'creator_fee', 'CONFIRMED']).sort());
    const mine = (await json(await fetch(`${service.url}/api/wallets/${creator.address}/earnings`))).data;
    expect(mine.items.filter((i: { tokenId: string }) => i.tokenId === token.tokenId)).toEqual([]);
  }, 120_000);

  it('a vested dev buy: locked, its sale refused before the cliff, released on schedule on chain, then sold', async () => {
    const CLIFF = 60;
    const DURATION = 120;
    const created = (await json(await call(creator, '/tokens', { name: 'Vested', symbol: 'VEST', initialBuyUsd: '20', vesting: { cliffSeconds: CLIFF, durationSeconds: DURATION } }))).data;
    const bought = parseTokens(created.initialBuy.tokensReceived);
    expect(created.initialBuy.delivery).toBeNull();
    await drain(service, clock, 4); // deployed; nothing delivered
    expect(await tokensOf(created.address, creator.address)).toBe(0n);
    const position = async () =>
      (await json(await fetch(`${service.url}/positions?wallet=${creator.address}&network=${TESTNET}`))).data.items.find((p: { tokenId: string }) => p.tokenId === created.tokenId);
    expect(await position()).toMatchObject({ balance: created.initialBuy.tokensReceived, lockedBalance: created.initialBuy.tokensReceived, onChainBalance: '0', vesting: { cliffSeconds: CLIFF } });

    // Before the cliff: a sell of the locked tokens is 409 TOKENS_LOCKED, before any 402 — unpaid or paying.
    const sell = await signedSellBody(service.url, creator, created.tokenId, '1000');
    for (const paying of [false, true]) {
      const refused = await call(creator, '/entrypoints/token_sell', sell, paying);
      expect(refused.status).toBe(409);
      expect(refused.headers.get('payment-required')).toBeNull();
      expect((await json(refused)).error).toMatchObject({ code: 'TOKENS_LOCKED', details: { locked: created.initialBuy.tokensReceived, available: '0' } });
    }

    // Half-way through the schedule: half released, on chain in the creator's wallet; the rest still locked.
    clock.offsetMs += (CLIFF + DURATION / 2) * 1000;
    await drain(service, clock, 3, 100);
    const half = await tokensOf(created.address, creator.address);
    expect(half).toBeGreaterThan(0n);
    expect(half).toBeLessThan(bought);
    const midway = await position();
    expect(parseTokens(midway.lockedBalance)).toBe(bought - half);
    expect(parseTokens(midway.onChainBalance)).toBe(half);
    // At the end: all of it, released once.
    clock.offsetMs += DURATION * 1000;
    await drain(service, clock, 4); // released, delivered, confirmed
    expect(await tokensOf(created.address, creator.address)).toBe(bought);
    expect(await position()).toMatchObject({ lockedBalance: '0', vesting: { lockedTokens: '0', nextReleaseAt: null } });
    const deliveries = await sql<{ amount: string; state: string }>(`select amount, state from deliveries where token_id = '${created.tokenId}'`);
    expect(deliveries.every((d) => d.state === 'CONFIRMED')).toBe(true);
    expect(deliveries.reduce((s, d) => s + BigInt(d.amount), 0n)).toBe(bought);

    // Released, they sell (the clock back with the chain's, which a payment's window is checked against).
    clock.offsetMs = 0;
    const sold = await call(creator, '/entrypoints/token_sell', await signedSellBody(service.url, creator, created.tokenId, '1000'));
    expect(sold.status).toBe(200);
    expect((await json(sold)).data).toMatchObject({ tokensSold: '1000', position: { lockedBalance: '0' } });
    expect(await tokensOf(created.address, creator.address)).toBe(bought - parseTokens('1000'));
  }, 180_000);
});
