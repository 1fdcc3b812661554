/**
 * Creator splits, cashback and vested dev buys over HTTP and MCP, on the fakes (docs/api.md "Fees
 * and earnings", decisions 0078 and 0079): a create whose splits, fee mode or vesting cannot be is
 * refused with 400 before any 402 — nothing asked, nothing charged; one that can is priced and
 * paid as any create, and shows them; the creator changes its splits free with Sign-In-With-X;
 * the OpenAPI document and llms.txt carry all three.
 */
import type { Client } from '@modelcontextprotocol/client';
import { createSIWxPayload, encodeSIWxHeader } from '@x402/extensions/sign-in-with-x';
import type { PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/bootstrap/compose.js';
import { parseUsd } from '../../src/domain/money.js';
import { NETWORKS, TESTNET } from '../../src/domain/network.js';
import { call, connectMcp, envelopeOf } from '../support/mcp-client.js';
import { json, startTestService } from '../support/service.js';
import { devAccount, payingFetch } from '../support/x402-client.js';

const [creator, stranger, trader] = [devAccount(9), devAccount(8), devAccount(7)];
const TEAM = ['0x90F79bf6EB2c4f870365E785982E1f101E93b906', '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65', '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc'] as const;
const SPLITS = [
  { wallet: TEAM[0], bps: 6000 },
  { wallet: TEAM[1], bps: 3000 },
  { wallet: TEAM[2], bps: 1000 },
];
let service: RunningService;
let agent: Client;

const post = (path: string, body: unknown, f: typeof fetch = fetch, headers: Record<string, string> = {}) =>
  f(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-wallet-address': creator.address, ...headers }, body: JSON.stringify(body) });

/** A Sign-In-With-X proof of `account` for `url`, made by the official client function with a fresh nonce. */
async function proof(account: PrivateKeyAccount, url: string): Promise<string> {
  const origin = new URL(service.url);
  const now = Date.now();
  const nonce = `n${now}${Math.random().toString(36).slice(2, 10)}`.replace(/[^A-Za-z0-9]/g, '');
  const info = { domain: origin.host, uri: origin.origin, version: '1', nonce, issuedAt: new Date(now).toISOString(), expirationTime: new Date(now + 120_000).toISOString(), chainId: TESTNET, type: 'eip191' as const };
  return encodeSIWxHeader(await createSIWxPayload(info, account, url));
}

beforeAll(async () => {
  service = await startTestService();
  agent = await connectMcp(`${service.url}/mcp`);
});
afterAll(async () => {
  await agent?.close();
  await service?.stop();
});

const eleven = Array.from({ length: 11 }, (_, i) => ({ wallet: `0x${String(i + 1).padStart(40, '1')}`, bps: i === 0 ? 9000 : 100 }));

describe('a create whose splits, fee mode or vesting cannot be', () => {
  const refused: [string, Record<string, unknown>, string, string][] = [
    ['eleven wallets', { creatorSplits: eleven }, 'VALIDATION_ERROR', 'creatorSplits'],
    ['no wallet', { creatorSplits: [] }, 'VALIDATION_ERROR', 'creatorSplits'],
    ['bps adding up to 9999', { creatorSplits: [{ wallet: TEAM[0], bps: 9999 }] }, 'VALIDATION_ERROR', 'creatorSplits'],
    ['bps adding up to 10001', { creatorSplits: [{ wallet: TEAM[0], bps: 5001 }, { wallet: TEAM[1], bps: 5000 }] }, 'VALIDATION_ERROR', 'creatorSplits'],
    ['a wallet twice', { creatorSplits: [{ wallet: TEAM[0], bps: 5000 }, { wallet: TEAM[0].toLowerCase(), bps: 5000 }] }, 'VALIDATION_ERROR', 'creatorSplits.1.wallet'],
    ['a part of 0 bps', { creatorSplits: [{ wallet: TEAM[0], bps: 0 }, { wallet: TEAM[1], bps: 10_000 }] }, 'VALIDATION_ERROR', 'creatorSplits.0.bps'],
    ['the USDC contract', { creatorSplits: [{ wallet: TEAM[0], bps: 5000 }, { wallet: NETWORKS[TESTNET].usdc, bps: 5000 }] }, 'REFERRER_NOT_ALLOWED', 'creatorSplits.1.wallet'],
    ['splits on a cashback token', { feeMode: 'cashback', creatorSplits: SPLITS }, 'VALIDATION_ERROR', 'creatorSplits'],
    ['an unknown fee mode', { feeMode: 'treasury' }, 'VALIDATION_ERROR', 'feeMode'],
    ['a vesting without a dev buy', { vesting: { cliffSeconds: 60, durationSeconds: 60 } }, 'VALIDATION_ERROR', 'vesting'],
    ['a cliff over a year', { initialBuyUsd: '1', vesting: { cliffSeconds: 365 * 86_400 + 1, durationSeconds: 0 } }, 'VALIDATION_ERROR', 'vesting.cliffSeconds'],
    ['a duration over four years', { initialBuyUsd: '1', vesting: { cliffSeconds: 0, durationSeconds: 4 * 365 * 86_400 + 1 } }, 'VALIDATION_ERROR', 'vesting.durationSeconds'],
  ];

  it.each(refused)('%s: 400 before any 402, unpaid and paying alike', async (_what, extra, code, path) => {
    for (const f of [fetch, payingFetch(creator)]) {
      const res = await post('/tokens', { name: 'Refused', symbol: 'NOPE', ...extra }, f);
      expect(res.status).toBe(400);
      expect(res.headers.get('payment-required')).toBeNull();
      const { error } = await json(res);
      expect(error.code).toBe(code);
      if (code === 'VALIDATION_ERROR') expect(error.details.issues.map((i: { path: string }) => i.path)).toContain(path);
      else expect(error.details.field).toBe(path);
    }
  });

  it('over MCP too: refused before any PaymentRequired', async () => {
    const result = await call(agent, 'create_token', { name: 'Refused', symbol: 'NOPE', creatorSplits: eleven });
    expect(result.isError).toBe(true);
    expect(envelopeOf(result).error.code).toBe('VALIDATION_ERROR');
    const cashback = await call(agent, 'create_token', { name: 'Back', symbol: 'BACK', feeMode: 'cashback', creatorSplits: SPLITS });
    expect(envelopeOf(cashback).error.code).toBe('VALIDATION_ERROR');
  });
});

describe('a create with splits, cashback or a vested dev buy', () => {
  it('is priced as any create (plus its dev buy), paid, and shows its terms', async () => {
    for (const [extra, price] of [
      [{ creatorSplits: SPLITS }, '10000'],
      [{ feeMode: 'cashback' }, '10000'],
      [{ initialBuyUsd: '2', vesting: { cliffSeconds: 60, durationSeconds: 600 } }, '2010000'],
    ] as const) {
      const challenge = await post('/tokens', { name: 'Priced', symbol: 'PRICE', ...extra });
      expect(challenge.status).toBe(402);
      const required = JSON.parse(Buffer.from(challenge.headers.get('payment-required')!, 'base64').toString());
      expect(required.accepts[0].amount).toBe(price);
    }
    const split = (await json(await post('/tokens', { name: 'Team', symbol: 'TEAM', creatorSplits: SPLITS }, payingFetch(creator)))).data;
    expect(split).toMatchObject({ feeMode: 'creator', creatorSplits: SPLITS, vesting: null });
    const back = (await json(await post('/tokens', { name: 'Back', symbol: 'BACK', feeMode: 'cashback' }, payingFetch(creator)))).data;
    expect(back).toMatchObject({ feeMode: 'cashback', creatorSplits: null });
    const vested = (await json(await post('/tokens', { name: 'Vest', symbol: 'VEST', initialBuyUsd: '2', vesting: { cliffSeconds: 60, durationSeconds: 600 } }, payingFetch(creator)))).data;
    expect(vested.initialBuy).toMatchObject({ delivery: null, position: { lockedBalance: vested.initialBuy.tokensReceived } });
    expect(vested.vesting).toMatchObject({ tokens: vested.initialBuy.tokensReceived, lockedTokens: vested.initialBuy.tokensReceived, cliffSeconds: 60, durationSeconds: 600 });
    const read = (await json(await fetch(`${service.url}/tokens/${vested.tokenId}`))).data;
    expect(read.vesting).toEqual(vested.vesting);
    const holders = (await json(await fetch(`${service.url}/api/tokens/${vested.tokenId}/holders`))).data;
    expect(holders.items).toEqual([{ wallet: creator.address, balance: vested.initialBuy.tokensReceived, share: '1', locked: vested.initialBuy.tokensReceived }]);
  });
});

describe('the creator changes its splits', () => {
  it('free, proving its wallet with Sign-In-With-X: the trades after it earn the new wallets; anyone else is 403, no proof 400', async () => {
    const token = (await json(await post('/tokens', { name: 'Change', symbol: 'CHG' }, payingFetch(creator)))).data;
    const url = `${service.url}/tokens/${token.tokenId}/splits`;
    const send = async (headers: Record<string, string>, creatorSplits: unknown = SPLITS) =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ creatorSplits }) });
    expect((await send({})).status).toBe(400);
    expect((await send({ 'x-wallet-address': creator.address })).status).toBe(400); // a wallet named is no proof
    const byStranger = await send({ 'sign-in-with-x': await proof(stranger, url) });
    expect(byStranger.status).toBe(403);
    expect((await json(byStranger)).error.code).toBe('NOT_TOKEN_CREATOR');
    const badSum = await send({ 'sign-in-with-x': await proof(creator, url) }, [{ wallet: TEAM[0], bps: 10 }]);
    expect(badSum.status).toBe(400);
    const changed = await send({ 'sign-in-with-x': await proof(creator, url) });
    expect(changed.status).toBe(200);
    expect((await json(changed)).data.creatorSplits).toEqual(SPLITS);
    expect((await json(await fetch(`${service.url}/tokens/${token.tokenId}`))).data.creatorSplits).toEqual(SPLITS);

    const bought = (await json(await post('/entrypoints/token_buy_usd', { tokenId: token.tokenId, usdAmount: '100' }, payingFetch(trader), { 'x-wallet-address': trader.address }))).data;
    // Each its floor of the creator share, the first the remainder: to the unit.
    const share = (parseUsd(bought.feeUsd) * 5000n) / 10_000n;
    const parts = [6000n, 3000n, 1000n].map((bps) => (share * bps) / 10_000n);
    parts[0] = share - parts[1]! - parts[2]!;
    const earned = await Promise.all(TEAM.map(async (w) => (await json(await fetch(`${service.url}/api/wallets/${w}/earnings`))).data));
    expect(earned.map((e) => parseUsd(e.accruedUsd))).toEqual(parts);
    for (const e of earned) expect(e.items).toMatchObject([{ tokenId: token.tokenId, role: 'creator' }]);
    const creatorEarned = (await json(await fetch(`${service.url}/api/wallets/${creator.address}/earnings`))).data;
    expect(creatorEarned.items.filter((i: { tokenId: string }) => i.tokenId === token.tokenId)).toEqual([]);
  });
});

describe('the documents', () => {
  it('OpenAPI and llms.txt carry the splits, the fee mode, the vesting and the change of splits', async () => {
    const doc = await json(await fetch(`${service.url}/api/openapi.json`));
    const create = JSON.stringify(doc.paths['/tokens'].post);
    for (const field of ['creatorSplits', 'feeMode', 'cashback', 'vesting', 'cliffSeconds', 'durationSeconds']) expect(create).toContain(field);
    expect(doc.paths['/tokens/{id}/splits'].post).toBeDefined();
    const llms = await (await fetch(`${service.url}/llms.txt`)).text();
    expect(llms).toContain('/tokens/{tokenId}/splits');
  });
});
