/**
 * The whole paid surface through a real listening server and the official x402 client:
 * create, the three buys, a sell, positions — every amount checked against the curve.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodePaymentResponseHeader } from '@x402/fetch';
import {
  costForTokens,
  DEFAULT_CURVE_PARAMS as P,
  initialCurveState,
  quoteBuyWithUsd,
  quoteSell,
  type CurveState,
} from '../../src/domain/curve.js';
import { formatTokens, formatUsd, parseTokens, parseUsd } from '../../src/domain/money.js';
import type { RunningService } from '../../src/bootstrap/compose.js';
import { devAccount, payingFetch, decodeBase64Json } from '../support/x402-client.js';
import { signedSellBody } from '../support/onchain.js';
import { json, settle, startTestService } from '../support/service.js';

const testnetWallet = devAccount(5);
const pay = payingFetch(testnetWallet);
let service: RunningService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service.stop();
});

const post = (path: string, body: unknown, f: typeof fetch = pay) =>
  f(`${service.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-wallet-address': testnetWallet.address },
    body: JSON.stringify(body),
  });

describe('a testnet wallet pays its way through the API with @x402/fetch', () => {
  let tokenId: string;
  let curve: CurveState = initialCurveState(P);
  let balance = 0n;

  it('the unpaid request gets the 402 challenge in header and envelope', async () => {
    const res = await post('/tokens', { name: 'Moon Cat', symbol: 'mcat' }, fetch);
    expect(res.status).toBe(402);
    const body = await json(res);
    const header = decodeBase64Json<any>(res.headers.get('payment-required'));
    // The header is the envelope's object without what only the body carries (docs/api.md, "Paying");
    // beside the envelope, what an x402 v1 client reads: its version and the USDC offer in v1's form.
    expect(body).toEqual({
      success: false,
      error: { code: 'PAYMENT_REQUIRED', message: expect.any(String), details: { ...header, resource: body.error.details.resource, extensions: body.error.details.extensions } },
      x402Version: 1,
      accepts: [
        {
          scheme: 'exact',
          network: 'base-sepolia',
          maxAmountRequired: '10000',
          resource: `${service.url}/tokens`,
          description: body.error.details.resource.description,
          mimeType: 'application/json',
          payTo: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
          maxTimeoutSeconds: 60,
          asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
          extra: { name: 'USDC', version: '2' },
        },
      ],
    });
    expect(body.error.details.resource).toEqual({ ...header.resource, description: expect.any(String) });
    expect(body.error.details.extensions).toMatchObject(header.extensions);
    expect(header).toMatchObject({
      x402Version: 2,
      resource: { url: `${service.url}/tokens` },
      accepts: [
        {
          scheme: 'exact',
          network: 'eip155:84532',
          asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
          amount: '10000',
          payTo: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
          maxTimeoutSeconds: 60,
          extra: { name: 'USDC', version: '2' },
        },
        {
          scheme: 'exact',
          network: 'eip155:84532',
          asset: '0x808456652fdb597867f38412077A9182bf77359F',
          amount: '9260', // $0.01 over EUR/USD 1.08, rounded up
          payTo: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
          maxTimeoutSeconds: 60,
          extra: { name: 'EURC', version: '2' },
        },
        // The same by batch-settlement (docs/api.md "Pay once, call many").
        { scheme: 'batch-settlement', network: 'eip155:84532', amount: '10000', extra: { name: 'USDC', version: '2', receiverAuthorizer: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', minDeposit: '100000' } },
        { scheme: 'batch-settlement', network: 'eip155:84532', amount: '9260', extra: { name: 'EURC', version: '2', receiverAuthorizer: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', minDeposit: '92600' } },
      ],
    });
    expect(res.headers.get('api-version')).toBe('1');
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('creates a token on the payer network, with the payer as creator', async () => {
    const res = await post('/tokens', { name: 'Moon Cat', symbol: 'mcat', description: 'meow' });
    expect(res.status).toBe(201);
    const body = await json(res);
    expect(body).toMatchObject({
      success: true,
      operation: 'create_token',
      data: { symbol: 'MCAT', network: 'eip155:84532', creator: testnetWallet.address, state: 'ACTIVE' },
    });
    const settlement = decodePaymentResponseHeader(res.headers.get('payment-response')!);
    expect(settlement).toMatchObject({ success: true, network: 'eip155:84532', payer: testnetWallet.address });
    expect(settlement.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    tokenId = body.data.tokenId;
  });

  it('token_buy_usd spends exactly usdAmount: $5 gives 884495.291384607698648614 tokens', async () => {
    const res = await post('/entrypoints/token_buy_usd', { tokenId, usdAmount: '5' });
    expect(res.status).toBe(200);
    const { data, operation } = await json(res);
    expect(operation).toBe('buy_token');
    expect(data).toMatchObject({
      tokenId,
      tokensReceived: '884495.291384607698648614',
      usdSpent: '5',
      feeUsd: '0.05',
      payment: { network: 'eip155:84532', payer: testnetWallet.address, transaction: expect.stringMatching(/^0x/) },
    });
    const q = quoteBuyWithUsd(P, curve, parseUsd('5'));
    curve = q.after;
    balance += q.tokensOut;
  });

  it('token_buy_tokens charges the rounded-up cost of the tokens (body wrapped in { input })', async () => {
    const tokens = parseTokens('1000000');
    const cost = costForTokens(P, curve, tokens);
    const res = await post('/entrypoints/token_buy_tokens/invoke', { input: { tokenId, tokens: '1000000' } });
    expect(res.status).toBe(200);
    const { data } = await json(res);
    const q = quoteBuyWithUsd(P, curve, cost);
    expect(data.usdSpent).toBe(formatUsd(cost));
    expect(data.tokensReceived).toBe(formatTokens(q.tokensOut));
    expect(q.tokensOut).toBeGreaterThanOrEqual(tokens);
    curve = q.after;
    balance += q.tokensOut;
  });

  it('token_buy_quote executes a stored quote at its price', async () => {
    const quoteRes = await fetch(`${service.url}/api/quote?tokenId=${tokenId}&side=buy&usdAmount=2.5`);
    const quote = (await json(quoteRes)).data;
    const expected = quoteBuyWithUsd(P, curve, parseUsd('2.5'));
    expect(quote).toMatchObject({ usdAmount: '2.5', tokens: formatTokens(expected.tokensOut), provider: 'curve' });
    const res = await post('/entrypoints/token_buy_quote', { quoteId: quote.quoteId });
    expect(res.status).toBe(200);
    const { data } = await json(res);
    expect(data).toMatchObject({ usdSpent: '2.5', tokensReceived: formatTokens(expected.tokensOut) });
    curve = expected.after;
    balance += expected.tokensOut;
  });

  it('token_sell pulls the seller\'s tokens with its signed authorization and queues the proceeds as a payout', async () => {
    await settle(service); // the token is deployed and the buys delivered
    const tokens = balance / 2n;
    const expected = quoteSell(P, curve, tokens);
    const res = await post('/entrypoints/token_sell', await signedSellBody(service.url, testnetWallet, tokenId, formatTokens(tokens)));
    expect(res.status).toBe(200);
    const { data, operation } = await json(res);
    expect(operation).toBe('sell_token');
    expect(data).toMatchObject({
      tokensSold: formatTokens(tokens),
      usdReceived: formatUsd(expected.usdOut),
      feeUsd: formatUsd(expected.feeUsd),
      payout: { amount: formatUsd(expected.usdOut), reason: 'sell', wallet: testnetWallet.address, network: 'eip155:84532' },
    });
    curve = expected.after;
    balance -= tokens;
  });

  it('token_info is paid and returns the token with analytics', async () => {
    const res = await post('/entrypoints/token_info', { tokenId });
    expect(res.status).toBe(200);
    const { data } = await json(res);
    expect(data).toMatchObject({ tokenId, trades24h: 4, holders: 1 });
    expect(data.holdersTop).toEqual([{ wallet: testnetWallet.address, balance: formatTokens(balance), share: '1', locked: '0' }]);
  });

  it('positions and the token reflect every trade exactly', async () => {
    const res = await fetch(`${service.url}/positions?wallet=${testnetWallet.address.toLowerCase()}`);
    const { data } = await json(res);
    expect(data).toMatchObject({ wallet: testnetWallet.address, network: 'eip155:84532' });
    expect(data.items).toHaveLength(1);
    expect(data.items[0]).toMatchObject({ tokenId, symbol: 'MCAT', balance: formatTokens(balance) });
    const token = (await json(await fetch(`${service.url}/tokens/${tokenId}`))).data;
    expect(token.curve.tokensSold).toBe(formatTokens(curve.tokensSold));
    expect(token.curve.virtualUsdReserve).toBe(formatUsd(curve.virtualUsd));
  });
});
