/**
 * x402 v1 beside v2 on the paid HTTP routes (decision 0046), through a real listening server over
 * fakes (in-memory stores, the signature-checking facilitator), paid by the real v1 clients from
 * the registry, unchanged: x402-fetch 1.2.0 and x402-axios 0.7.2 (their own package, test/v1-clients). They read the 402's top-level
 * `x402Version` and `accepts`, pay in X-PAYMENT and get X-PAYMENT-RESPONSE; a replayed v1 payment
 * is the first answer and charges nothing; a bad X-PAYMENT is a 402 with its reason, never a 5xx;
 * a paid v1 request is outside the free budget as a v2 one is; browsers may send and read the
 * v1 headers. The same on the devnet, books against the chain: x402-v1-devnet.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeFacilitator } from '../../src/adapters/facilitator/fake/fake-facilitator.js';
import type { RunningService } from '../../src/bootstrap/compose.js';
import { parseUsd } from '../../src/domain/money.js';
import { TESTNET } from '../../src/domain/network.js';
import { json, ShiftableClock, startTestService } from '../support/service.js';
import { decodeBase64Json, devAccount, devKey } from '../support/x402-client.js';
import { axios, createSigner, decodeXPaymentResponse, withPaymentInterceptor, wrapFetchWithPayment } from '../v1-clients/index.js';

const APP = 'https://app.example.com';
const clock = new ShiftableClock();
const facilitator = new FakeFacilitator({ clock, defaultBalance: 10_000_000_000n });
let service: RunningService;
let tokenId: string;

beforeAll(async () => {
  service = await startTestService({ ports: { clock, facilitator } }, { CORS_ORIGINS: APP });
});
afterAll(async () => {
  await service.stop();
});

/** x402-fetch as its README shows it, with a spending cap above the $5 buy; `sent` records what it sends. */
async function v1Fetch(index: number, sent: { headers: Record<string, string> }[] = []) {
  const recording: typeof fetch = (input, init) => {
    sent.push({ headers: { ...(init?.headers as Record<string, string>) } });
    return fetch(input, init);
  };
  return wrapFetchWithPayment(recording, await createSigner('base-sepolia', devKey(index)), parseUsd('10')) as typeof fetch;
}

const post = (f: typeof fetch, path: string, body: unknown, headers: Record<string, string> = {}) =>
  f(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

const settledBy = (payer: string) => facilitator.settled.filter((t) => t.from === payer);

describe('x402-fetch 1.2.0, unchanged', () => {
  const payer = devAccount(5).address;
  const sent: { headers: Record<string, string> }[] = [];

  it('reads the 402: x402Version 1 and the USDC offers in v1 form, beside the envelope and PAYMENT-REQUIRED', async () => {
    const res = await post(fetch, '/tokens', { name: 'Vee One', symbol: 'VONE' });
    expect(res.status).toBe(402);
    const body = await json(res);
    expect(body).toMatchObject({ success: false, error: { code: 'PAYMENT_REQUIRED' }, x402Version: 1 });
    expect(body.accepts.map((a: any) => [a.network, a.maxAmountRequired])).toEqual([
      ['base', '10000'],
      ['base-sepolia', '10000'],
    ]);
    expect(decodeBase64Json<any>(res.headers.get('payment-required'))).toMatchObject({ x402Version: 2 });
  });

  it('creates a token and buys it: X-PAYMENT in, X-PAYMENT-RESPONSE out, exactly the prices moved', async () => {
    const pay = await v1Fetch(5, sent);
    const created = await post(pay, '/tokens', { name: 'Vee One', symbol: 'VONE' });
    expect(created.status).toBe(201);
    const body = await json(created);
    expect(body.data).toMatchObject({ symbol: 'VONE', network: TESTNET, creator: payer });
    tokenId = body.data.tokenId;
    expect(sent.at(-1)!.headers['X-PAYMENT']).toEqual(expect.any(String));
    expect(created.headers.get('payment-response')).toBeNull();
    const settlement = decodeXPaymentResponse(created.headers.get('x-payment-response')!);
    expect(settlement).toEqual({ success: true, transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/), network: 'base-sepolia', payer });

    const bought = await post(pay, '/entrypoints/token_buy_usd', { tokenId, usdAmount: '5' });
    expect(bought.status).toBe(200);
    expect((await json(bought)).data).toMatchObject({ tokenId, usdSpent: '5', payment: { network: TESTNET, payer } });
    expect(settledBy(payer).map((t) => [t.network, t.asset, t.amount])).toEqual([
      [TESTNET, 'USDC', 10_000n],
      [TESTNET, 'USDC', 5_000_000n],
    ]);
  });

  it('a v1 payment replayed is the first answer, charged once — in X-PAYMENT and in PAYMENT-SIGNATURE alike', async () => {
    const first = sent.at(-1)!.headers['X-PAYMENT']!;
    const before = facilitator.settled.length;
    const uow = service.application.deps.uow;
    const again = await post(fetch, '/entrypoints/token_buy_usd', { tokenId, usdAmount: '5' }, { 'X-PAYMENT': first });
    expect(again.status).toBe(200);
    const replayed = await json(again);
    expect(decodeXPaymentResponse(again.headers.get('x-payment-response')!)).toMatchObject({ success: true, network: 'base-sepolia' });
    const inV2Header = await post(fetch, '/entrypoints/token_buy_usd', { tokenId, usdAmount: '5' }, { 'PAYMENT-SIGNATURE': first });
    expect(inV2Header.status).toBe(200);
    expect(await json(inV2Header)).toEqual(replayed);
    expect(decodeBase64Json<any>(inV2Header.headers.get('payment-response'))).toMatchObject({ success: true, network: TESTNET });
    expect(facilitator.settled.length).toBe(before);
    const payments = await uow.run((s) => s.payments.listByState('APPLIED', new Date(Date.now() + 60_000), 100));
    expect(payments.filter((p) => p.payer === payer)).toHaveLength(2);
  });
});

describe('networks', () => {
  it("a production wallet's x402-fetch pays the `base` offer of a 402 offering both, on eip155:8453", async () => {
    const payer = devAccount(1).address; // production history (docs/networks.md)
    const pay = wrapFetchWithPayment(fetch, await createSigner('base', devKey(1))) as typeof fetch;
    const res = await post(pay, '/tokens', { name: 'Base Vee', symbol: 'BASEV' });
    expect(res.status).toBe(201);
    expect((await json(res)).data).toMatchObject({ network: 'eip155:8453', creator: payer });
    expect(decodeXPaymentResponse(res.headers.get('x-payment-response')!)).toMatchObject({ network: 'base', payer });
  });

  it('a testnet payment from a production wallet is NETWORK_MISMATCH, whose 402 offers v1 only the wallet network', async () => {
    const header = await v1PaymentFor('/tokens', { name: 'Wrong Net', symbol: 'WRONG' }, 1, 'base-sepolia');
    const res = await post(fetch, '/tokens', { name: 'Wrong Net', symbol: 'WRONG' }, { 'X-PAYMENT': header });
    expect(res.status).toBe(402);
    const body = await json(res);
    expect(body.error.code).toBe('NETWORK_MISMATCH');
    expect(body.accepts.map((a: any) => a.network)).toEqual(['base']);
  });
});

describe('x402-axios 0.7.2, unchanged', () => {
  it('creates a token and buys it with a 402 offering both networks: the testnet offer, X-PAYMENT-RESPONSE', async () => {
    const payer = devAccount(6).address;
    const client = withPaymentInterceptor(axios.create({ baseURL: service.url }), await createSigner('base-sepolia', devKey(6)));
    const created = await client.post('/entrypoints/token_create', { name: 'Axios Vee', symbol: 'AXV' });
    expect(created.status).toBe(201);
    expect(decodeXPaymentResponse(created.headers['x-payment-response'])).toMatchObject({ success: true, network: 'base-sepolia', payer });
    const bought = await client.post('/entrypoints/token_buy_usd/invoke', { input: { tokenId: created.data.data.tokenId, usdAmount: '2.5' } });
    expect(bought.status).toBe(200);
    expect(bought.data.data).toMatchObject({ usdSpent: '2.5', payment: { payer } });
    expect(settledBy(payer).map((t) => t.amount)).toEqual([10_000n, 2_500_000n]);
  });
});

describe('a bad X-PAYMENT is a 402 with its reason and the offers, never a 5xx', () => {
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v), 'utf8').toString('base64');
  const buy = () => ({ tokenId, usdAmount: '1' });

  it.each([
    ['garbage', 'not-base64!', 'invalid_x_payment_header'],
    ['base64 of no JSON', Buffer.from('{oops').toString('base64'), 'invalid_x_payment_header'],
    ['a v2 payload', b64({ x402Version: 2, accepted: {}, payload: {} }), 'unsupported_payment'],
    ['another network', b64({ x402Version: 1, scheme: 'exact', network: 'polygon', payload: {} }), 'unsupported_payment'],
  ])('%s', async (_name, header, reason) => {
    const res = await post(fetch, '/entrypoints/token_buy_usd', buy(), { 'X-PAYMENT': header });
    expect(res.status).toBe(402);
    const body = await json(res);
    expect(body.error).toMatchObject({ code: 'PAYMENT_INVALID', details: { reason } });
    expect(body).toMatchObject({ x402Version: 1, accepts: [expect.objectContaining({ network: 'base-sepolia', maxAmountRequired: '1000000' })] }); // the token's network
    expect(res.headers.get('payment-required')).toEqual(expect.any(String));
  });

  it('an authorization that is no EIP-3009 authorization, or one for another price', async () => {
    const shapeless = await post(fetch, '/entrypoints/token_buy_usd', buy(), {
      'X-PAYMENT': b64({ x402Version: 1, scheme: 'exact', network: 'base-sepolia', payload: { signature: '0x12', authorization: { from: 'me' } } }),
    });
    expect(shapeless.status).toBe(402);
    expect((await json(shapeless)).error.details.reason).toBe('invalid_payload');

    // x402-fetch's payment for a $2 buy, sent for a $3 one: another price, refused before anything is charged.
    const before = facilitator.settled.length;
    const forTwo = await v1PaymentFor('/entrypoints/token_buy_usd', { tokenId, usdAmount: '2' }, 7);
    const wrongPrice = await post(fetch, '/entrypoints/token_buy_usd', { tokenId, usdAmount: '3' }, { 'X-PAYMENT': forTwo });
    expect(wrongPrice.status).toBe(402);
    expect((await json(wrongPrice)).error).toMatchObject({ code: 'PAYMENT_INVALID', details: { reason: 'invalid_amount' } });
    expect(facilitator.settled.length).toBe(before);
  });

  it('an invalid request is the validation error first', async () => {
    const res = await post(fetch, '/entrypoints/token_buy_usd', { tokenId }, { 'X-PAYMENT': 'garbage!' });
    expect(res.status).toBe(400);
    expect((await json(res)).error.code).toBe('VALIDATION_ERROR');
  });
});

describe('the free budget and browsers', () => {
  it('a paid v1 request is not counted against the free budget, as a v2 one is not', async () => {
    const limited = await startTestService({}, { RATE_LIMIT_FREE_PER_MINUTE: '1' });
    try {
      const at = (f: typeof fetch, body: unknown) => f(`${limited.url}/tokens`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect((await at(fetch, { name: 'Free', symbol: 'FREE' })).status).toBe(402);
      expect((await at(fetch, { name: 'Free', symbol: 'FREE' })).status).toBe(429);
      const header = await v1PaymentFor('/tokens', { name: 'Paid', symbol: 'PAID' }, 8); // the same price and treasury there
      const paid = await fetch(`${limited.url}/tokens`, { method: 'POST', headers: { 'content-type': 'application/json', 'X-PAYMENT': header }, body: JSON.stringify({ name: 'Paid', symbol: 'PAID' }) });
      expect(paid.status).toBe(201);
    } finally {
      await limited.stop();
    }
  });

  it('a page on an allowed origin may send X-PAYMENT (and the header x402-fetch adds) and read X-PAYMENT-RESPONSE', async () => {
    const preflight = await fetch(`${service.url}/entrypoints/token_buy_usd`, {
      method: 'OPTIONS',
      headers: { origin: APP, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-payment,access-control-expose-headers' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')!.toLowerCase().split(', ')).toEqual(
      expect.arrayContaining(['content-type', 'x-payment', 'access-control-expose-headers']),
    );
    const res = await post(await v1Fetch(9), '/entrypoints/token_info', { tokenId }, { origin: APP });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-expose-headers')!.split(', ')).toContain('X-PAYMENT-RESPONSE');
    expect(res.headers.get('x-payment-response')).toEqual(expect.any(String));
  });
});

/** The X-PAYMENT x402-fetch builds for this service's 402 of (path, body), taken off its retry before it is sent. */
async function v1PaymentFor(path: string, body: unknown, index: number, network: 'base' | 'base-sepolia' = 'base-sepolia'): Promise<string> {
  const challenge = await json(await post(fetch, path, body));
  let header = '';
  const capture: typeof fetch = async (_input, init) => {
    header = ((init?.headers ?? {}) as Record<string, string>)['X-PAYMENT'] ?? '';
    return new Response(JSON.stringify(challenge), { status: header ? 200 : 402 });
  };
  await wrapFetchWithPayment(capture, await createSigner(network, devKey(index)), parseUsd('10'))(`${service.url}${path}`);
  expect(header).not.toBe('');
  return header;
}
