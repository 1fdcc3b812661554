/**
 * Who may be a referrer (issue #34, item 2; docs/api.md "Fees and earnings", decision 0039): a
 * trade's `referrer` or a token's `platformReferrer` that is the service's own account or contract
 * is refused with 400 REFERRER_NOT_ALLOWED before any 402, on HTTP and MCP alike; any other
 * address — a smart wallet is a contract too — is taken as before.
 */
import type { Client } from '@modelcontextprotocol/client';
import { getAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVNET_UNISWAP_V2 } from '../../src/adapters/chain/anvil/devnet-constants.js';
import type { RunningService } from '../../src/bootstrap/compose.js';
import { NETWORKS, PRODUCTION, TESTNET } from '../../src/domain/network.js';
import { call, connectMcp, envelopeOf } from '../support/mcp-client.js';
import { json, startTestService } from '../support/service.js';
import { devAccount, payingFetch } from '../support/x402-client.js';

const wallet = devAccount(9);
const SMART_WALLET = '0x4337000000000000000000000000000000000001';
const SETTLEMENT_KEY = `0x${'5'.repeat(64)}` as const;
let service: RunningService;
let agent: Client;
let token: { tokenId: string; address: string };

const post = (path: string, body: unknown, f: typeof fetch = fetch) =>
  f(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address }, body: JSON.stringify(body) });

beforeAll(async () => {
  // Uniswap's devnet addresses stand in for configured ones: the fakes have no dex of their own.
  service = await startTestService({}, {
    SETTLEMENT_KEY,
    UNISWAP_V2_ROUTER_84532: DEVNET_UNISWAP_V2.router,
    UNISWAP_V2_FACTORY_84532: DEVNET_UNISWAP_V2.factory,
  });
  agent = await connectMcp(`${service.url}/mcp`);
  token = (await json(await post('/tokens', { name: 'Referred', symbol: 'REF' }, payingFetch(wallet)))).data;
});
afterAll(async () => {
  await agent?.close();
  await service?.stop();
});

/** Every address of the service's own, with what the refusal calls it. */
function own(): [string, RegExp][] {
  const deps = service.application.deps;
  return [
    [deps.settings.payTo[TESTNET], /treasury/],
    [deps.tokenIssuer.custody(TESTNET), /custody|treasury/],
    [deps.tokenIssuer.factory(PRODUCTION), /LaunchFactory/],
    [NETWORKS[TESTNET].usdc, /USDC contract/],
    [NETWORKS[PRODUCTION].assets.EURC.address, /EURC contract/],
    [privateKeyToAccount(SETTLEMENT_KEY).address, /settlement key/],
    [DEVNET_UNISWAP_V2.factory, /Uniswap v2 factory/],
    [token.address, new RegExp(`token ${token.tokenId}`)],
    [token.address.toLowerCase(), new RegExp(`token ${token.tokenId}`)],
  ];
}

/** Well-formed; the referrer is refused before it is looked at. */
const authorization = {
  from: wallet.address,
  to: wallet.address,
  value: '1000000000000000000',
  validAfter: '0',
  validBefore: '9999999999',
  nonce: `0x${'ab'.repeat(32)}`,
  signature: `0x${'cd'.repeat(65)}`,
};

describe('a referrer that is the service itself', () => {
  it('is refused with 400 REFERRER_NOT_ALLOWED before any 402: every buy, the sell and the create', async () => {
    for (const [address, what] of own()) {
      for (const [path, body, field] of [
        ['/entrypoints/token_buy_usd', { tokenId: token.tokenId, usdAmount: '1', referrer: address }, 'referrer'],
        ['/entrypoints/token_buy_tokens', { tokenId: token.tokenId, tokens: '100000', referrer: address }, 'referrer'],
        ['/entrypoints/token_sell', { tokenId: token.tokenId, tokens: '1', tokenAuthorization: authorization, referrer: address }, 'referrer'],
        ['/tokens', { name: 'Sink', symbol: 'SINK', platformReferrer: address }, 'platformReferrer'],
      ] as const) {
        const res = await post(path, body);
        expect(res.status, `${path} ${address}`).toBe(400);
        expect(res.headers.get('payment-required')).toBeNull();
        const { error } = await json(res);
        expect(error).toMatchObject({ code: 'REFERRER_NOT_ALLOWED', details: { field, address: getAddress(address) } });
        expect(error.message).toMatch(what);
      }
    }
  });

  it('over MCP too', async () => {
    const result = await call(agent, 'token_buy_usd', { tokenId: token.tokenId, usdAmount: '1', referrer: NETWORKS[TESTNET].usdc });
    expect(result.isError).toBe(true);
    expect(envelopeOf(result).error).toMatchObject({ code: 'REFERRER_NOT_ALLOWED', details: { field: 'referrer' } });
  });

  it('any other address, a smart wallet’s contract included, is taken as before', async () => {
    const res = await post('/entrypoints/token_buy_usd', { tokenId: token.tokenId, usdAmount: '1', referrer: SMART_WALLET });
    expect(res.status).toBe(402);
    const bought = await post('/entrypoints/token_buy_usd', { tokenId: token.tokenId, usdAmount: '1', referrer: SMART_WALLET }, payingFetch(wallet));
    expect(bought.status).toBe(200);
  });
});
