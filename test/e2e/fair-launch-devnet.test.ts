/**
 * Fair launches on the embedded devnet (docs/api.md "Fair launches", decision 0048), the pledges
 * paid with the official @x402/fetch client and their USDC authorizations signed as a wallet signs
 * the typed data the service serves. One devnet, short raises (15 s, the service's clock moved
 * past their end): a raise under its goal moves no USDC but the $0.01 fees; one over its goal gives
 * every pledger tokens at one price, exact to the unit, delivered on chain; bad pledges are refused
 * with their own code before anything is charged; and the books equal the chain.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { erc20Abi, type Hex, type PublicClient } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { crashOnceAfterMined } from '../support/crash-after-mined.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../src/bootstrap/compose.js';
import { parseTokens, parseUsd } from '../../src/domain/money.js';
import { TESTNET } from '../../src/domain/network.js';
import { expectBooksEqualChain, TREASURY, usdcOf } from '../support/books.js';
import { testDatabases } from '../support/databases.js';
import { queryDatabase } from '../support/service-process.js';
import { devnetConfig, drainWorkers as drain, json, ShiftableClock } from '../support/service.js';
import { devAccount, payingFetch } from '../support/x402-client.js';

const openStore = testDatabases('fair')[0]![1]; // SQLite: the rules are the store's contract, proven on both elsewhere
const clock = new ShiftableClock();
const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-fair-'));
const [creator, a, b, c] = [devAccount(5), devAccount(6), devAccount(7), devAccount(8)];
const WALLETS = [creator.address, a.address, b.address, c.address];
let service: RunningService;
let chain: PublicClient;
let databaseUrl: string;
let cleanup: () => Promise<void>;
const usdcBefore = new Map<string, bigint>();
let treasuryBefore: bigint;
const fault = { armed: false };


beforeAll(async () => {
  const store = await openStore();
  databaseUrl = store.url;
  cleanup = store.cleanup;
  // Creators' fee shares stay owed: each wallet's USDC moves only by its own payments and pledges.
  const config = await devnetConfig(dataDir, { EARNINGS_PAYOUT_MIN_USD: '1000000' });
  service = await startService(config, { ports: { clock, uow: store.uow }, wrapTokenIssuer: (issuer) => crashOnceAfterMined(issuer, fault, "a pledge's collect") });
  chain = service.devnet!.publicClient(TESTNET) as PublicClient;
  for (const w of WALLETS) usdcBefore.set(w, await usdcOf(chain, w));
  treasuryBefore = await usdcOf(chain, TREASURY);
}, 60_000);

afterAll(async () => {
  await service?.stop();
  await cleanup?.();
  rmSync(dataDir, { recursive: true, force: true });
});

const post = (account: PrivateKeyAccount, path: string, body: unknown) =>
  payingFetch(account)(`${service.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-wallet-address': account.address },
    body: JSON.stringify(body),
  });
const get = async (path: string) => json(await fetch(`${service.url}${path}`));
const sql = <T>(query: string) => queryDatabase<T>(databaseUrl, query);
const paymentsOf = async (w: PrivateKeyAccount) => Number((await sql<{ n: number }>(`select count(*) as n from payments where lower(payer) = '${w.address.toLowerCase()}'`))[0]!.n);
const spent = async (w: PrivateKeyAccount) => usdcBefore.get(w.address)! - (await usdcOf(chain, w.address));
/** Past the raise's end (15 s) and through the workers: settle, deploy, deliver. */
const endRaise = async () => {
  clock.offsetMs += 16_000;
  await drain(service, clock, 8);
};

async function fairToken(symbol: string, launch: Record<string, unknown>) {
  const res = await post(creator, '/tokens', { name: `Fair ${symbol}`, symbol, launch: { mode: 'fair', durationSeconds: 15, ...launch } });
  expect(res.status).toBe(201);
  return (await json(res)).data as { tokenId: string; address: string; tradingSince: string | null; launchMode: string };
}

/** The authorization the wallet signs for a pledge, as the service serves it; `over`: a field signed otherwise. */
async function authorization(tokenId: string, wallet: PrivateKeyAccount, usdAmount: string, over: Record<string, string> = {}) {
  const served = (await get(`/api/tokens/${tokenId}/pledge-authorization?wallet=${wallet.address}&usdAmount=${usdAmount}`)).data;
  const message = { ...served.typedData.message, ...over };
  const signature = await wallet.signTypedData({
    domain: served.typedData.domain,
    types: served.typedData.types,
    primaryType: 'ReceiveWithAuthorization',
    message: { ...message, value: BigInt(message.value), validAfter: BigInt(message.validAfter), validBefore: BigInt(message.validBefore) },
  });
  return { ...served.authorization, ...over, signature };
}

const pledge = async (tokenId: string, wallet: PrivateKeyAccount, usdAmount: string, over: Record<string, string> = {}) =>
  post(wallet, '/entrypoints/token_pledge', { tokenId, usdAmount, authorization: await authorization(tokenId, wallet, usdAmount, over) });

describe('fair launches on the devnet', () => {
  it('a raise under its goal moves no USDC but the $0.01 fees, and the token then trades', async () => {
    const token = await fairToken('UNDER', { goalUsd: '50' });
    expect(token).toMatchObject({ launchMode: 'fair', tradingSince: null });
    const refused = await fetch(`${service.url}/api/quote?tokenId=${token.tokenId}&side=buy&usdAmount=5`);
    expect([refused.status, (await json(refused)).error.code]).toEqual([409, 'TOKEN_RAISING']);
    const before = await spent(a);
    const placed = await pledge(token.tokenId, a, '10');
    expect(placed.status).toBe(201);
    expect((await json(placed)).data.raise).toMatchObject({ state: 'RAISING', pledgedUsd: '10', goalUsd: '50' });
    await endRaise();
    const raise = (await get(`/api/tokens/${token.tokenId}/raise`)).data;
    expect(raise).toMatchObject({ state: 'FAILED', failure: 'goal_not_reached', collectedUsd: '0' });
    expect(raise.pledges.map((p: { state: string }) => p.state)).toEqual(['RELEASED']);
    expect((await spent(a)) - before).toBe(parseUsd('0.01'));
    expect((await get(`/tokens/${token.tokenId}`)).data.tradingSince).not.toBeNull();
  }, 120_000);

  it('bad pledges get their own code and charge nothing: over the cap, an authorization for another amount, one that expired', async () => {
    const token = await fairToken('BAD', { goalUsd: '20', maxPerWalletUsd: '5' });
    const payments = await paymentsOf(b);
    const usdc = await usdcOf(chain, b.address);
    const over = await pledge(token.tokenId, b, '6');
    expect([over.status, (await json(over)).error.code]).toEqual([409, 'PLEDGE_CAP_EXCEEDED']);
    const other = await pledge(token.tokenId, b, '4', { value: '3000000' });
    const otherBody = await json(other);
    expect([other.status, otherBody.error.code, otherBody.error.details.reason]).toEqual([400, 'HELD_AUTHORIZATION_INVALID', 'value']);
    const expired = await pledge(token.tokenId, b, '4', { validBefore: String(Math.floor(Date.now() / 1000) - 1) });
    const expiredBody = await json(expired);
    expect([expired.status, expiredBody.error.code, expiredBody.error.details.reason]).toEqual([400, 'HELD_AUTHORIZATION_INVALID', 'expired']);
    expect(await paymentsOf(b)).toBe(payments);
    expect(await usdcOf(chain, b.address)).toBe(usdc);
    await endRaise(); // nothing pledged: it fails, and trades
  }, 120_000);

  it('a raise over its goal gives every pledger tokens at one price, exact to the unit, on chain', async () => {
    const token = await fairToken('OVER', { goalUsd: '20' });
    const amounts: [PrivateKeyAccount, string][] = [
      [a, '12.5'],
      [b, '7.25'],
      [c, '3.333333'],
    ];
    const spentBefore = await Promise.all(amounts.map(([w]) => spent(w)));
    for (const [w, usd] of amounts) expect((await pledge(token.tokenId, w, usd)).status).toBe(201);
    await endRaise();
    const raise = (await get(`/api/tokens/${token.tokenId}/raise`)).data;
    expect(raise).toMatchObject({ state: 'FILLED', collectedUsd: '23.083333', failure: null });
    const bought = parseTokens(raise.tokensBought);
    const total = parseUsd(raise.collectedUsd);
    const shares = amounts.map(([, usd]) => (bought * parseUsd(usd)) / total);
    expect(raise.pledges.map((p: { tokens: string }) => parseTokens(p.tokens))).toEqual(shares);
    expect(parseTokens(raise.remainderTokens)).toBe(bought - shares.reduce((x, y) => x + y, 0n));
    expect(parseTokens(raise.remainderTokens)).toBeLessThan(3n);
    for (const [i, [w, usd]] of amounts.entries()) {
      expect((await spent(w)) - spentBefore[i]!).toBe(parseUsd(usd) + parseUsd('0.01'));
      const onChain = await chain.readContract({ address: token.address as Hex, abi: erc20Abi, functionName: 'balanceOf', args: [w.address] });
      expect(onChain).toBe(shares[i]);
    }
    const trades = (await get(`/api/tokens/${token.tokenId}/trades`)).data.items as { priceUsd: string; usdAmount: string }[];
    expect(trades).toHaveLength(3);
    // One price: each pledger's USD over its tokens differs only by the rounding of its share.
    const prices = trades.map((t) => Number(t.priceUsd));
    expect(Math.max(...prices) / Math.min(...prices) - 1).toBeLessThan(1e-12);
    expect((await get(`/tokens/${token.tokenId}`)).data.tradingSince).not.toBeNull();
  }, 120_000);

  it('a crash right after a pledge is collected: the next pass finishes the raise, collecting nothing twice', async () => {
    const token = await fairToken('CRASH', { goalUsd: '5' });
    const spentBefore = [await spent(a), await spent(c)];
    expect((await pledge(token.tokenId, a, '3')).status).toBe(201);
    expect((await pledge(token.tokenId, c, '2.5')).status).toBe(201);
    fault.armed = true;
    await endRaise();
    expect(fault.armed).toBe(false); // it crashed once
    const raise = (await get(`/api/tokens/${token.tokenId}/raise`)).data;
    expect(raise).toMatchObject({ state: 'FILLED', collectedUsd: '5.5' });
    expect([(await spent(a)) - spentBefore[0]!, (await spent(c)) - spentBefore[1]!]).toEqual([parseUsd('3.01'), parseUsd('2.51')]);
    expect((await get(`/api/tokens/${token.tokenId}/trades`)).data.items).toHaveLength(2);
  }, 120_000);

  it('the books equal the chain: every wallet, the treasury, every token delivered', async () => {
    await drain(service, clock, 4);
    await expectBooksEqualChain({ databaseUrl, chain, wallets: WALLETS, usdcBefore, treasuryBefore });
  }, 120_000);
});
