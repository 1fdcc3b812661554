/**
 * Every row of the docs/api.md "Error codes" error table the HTTP API can produce, each asserting the status,
 * the code and the envelope shape — and, for paid endpoints, that nothing was settled.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/bootstrap/compose.js';
import { FakeFacilitator } from '../../src/adapters/facilitator/fake/fake-facilitator.js';
import { FakeNetworkDetector } from '../../src/adapters/network/fake/fake-network-detector.js';

import { PRODUCTION, TESTNET } from '../../src/domain/network.js';
import { FacilitatorError } from '../../src/domain/errors.js';
import { formatTokens } from '../../src/domain/money.js';
import { decodeBase64Json, devAccount, eurcOnly, payingFetch, signPayment } from '../support/x402-client.js';
import { signedSellBody } from '../support/onchain.js';
import { json, PRODUCTION_WALLETS, settle, ShiftableClock, startTestService } from '../support/service.js';

const testnet = devAccount(5);
const production = devAccount(1);
const clock = new ShiftableClock();
let facilitator: FakeFacilitator;
let detector: FakeNetworkDetector;
let service: RunningService;
let tokenId: string;

beforeAll(async () => {
  facilitator = new FakeFacilitator({ clock, defaultBalance: 1_000_000_000n });
  detector = new FakeNetworkDetector(Object.fromEntries(PRODUCTION_WALLETS.map((w) => [w, PRODUCTION])), { clock });
  service = await startTestService({ ports: { clock, facilitator, detector } });
  const res = await post('/tokens', { name: 'Errors', symbol: 'ERR' }, {}, payingFetch(testnet));
  tokenId = (await json(res)).data.tokenId;
  await settle(service); // its contract deployed
  clock.offsetMs = 0;
});
afterAll(async () => {
  await service.stop();
});
beforeEach(() => {
  clock.offsetMs = 0;
});

function post(path: string, body: unknown, headers: Record<string, string> = {}, f: typeof fetch = fetch, base = service.url) {
  return f(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-wallet-address': testnet.address, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function expectError(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  const body = await json(res);
  expect(body).toMatchObject({ success: false, error: { code, message: expect.any(String) } });
  // A 402 with offers carries beside the envelope what an x402 v1 client reads (decision 0046).
  const offers = body.error.details?.paymentRequired ?? (code === 'PAYMENT_REQUIRED' ? body.error.details : undefined);
  const v1 = offers?.accepts ? ['accepts', 'x402Version'] : [];
  expect(Object.keys(body).sort()).toEqual(['error', 'success', ...v1].sort());
  if (v1.length > 0) expect(body).toMatchObject({ x402Version: 1, accepts: expect.any(Array) });
  expect(res.headers.get('x-request-id')).toBeTruthy();
  expect(res.headers.get('api-version')).toBe('1');
  return body.error;
}

/** A signed payment for whatever the endpoint asks, as `account`. */
async function paidHeaders(path: string, body: unknown, account = testnet, hint = account.address, base = service.url) {
  const challenge = await post(path, body, { 'x-wallet-address': hint }, fetch, base);
  expect(challenge.status).toBe(402);
  const required = decodeBase64Json<any>(challenge.headers.get('payment-required'));
  return { 'payment-signature': await signPayment(account, required), 'x-wallet-address': hint };
}

describe('400', () => {
  it('VALIDATION_ERROR for unknown fields, bad amounts and bad queries, with issues', async () => {
    const e = await expectError(await post('/entrypoints/token_buy_usd', { tokenId, usdAmount: '5', extra: 1 }), 400, 'VALIDATION_ERROR');
    expect(e.details.issues).toEqual([{ path: '(body)', message: expect.stringContaining('extra') }]);
    const amount = await expectError(await post('/entrypoints/token_buy_usd', { tokenId, usdAmount: '1e3' }), 400, 'VALIDATION_ERROR');
    expect(amount.details.issues[0].path).toBe('usdAmount');
    await expectError(await post('/entrypoints/token_buy_usd', { tokenId, usdAmount: 5 }), 400, 'VALIDATION_ERROR');
    await expectError(await post('/entrypoints/token_buy_usd', { tokenId, usdAmount: '0.0000001' }), 400, 'VALIDATION_ERROR');
    await expectError(await post('/tokens', { name: 'a\u202Eb', symbol: 'X' }), 400, 'VALIDATION_ERROR');
    await expectError(await fetch(`${service.url}/tokens?limit=0`), 400, 'VALIDATION_ERROR');
    await expectError(await fetch(`${service.url}/tokens?cursor=garbage!`), 400, 'VALIDATION_ERROR');
    await expectError(await fetch(`${service.url}/positions`), 400, 'VALIDATION_ERROR');
    await expectError(await fetch(`${service.url}/tokens/not-a-token`), 400, 'VALIDATION_ERROR');
    await expectError(await post('/tokens', { name: 'A', symbol: 'A' }, { 'x-wallet-address': '0x123' }), 400, 'VALIDATION_ERROR');
  });

  it('a query-parameter issue names the parameter, never (body)', async () => {
    const unknown = await expectError(await fetch(`${service.url}/tokens?sort=created&colour=red&limit=5`), 400, 'VALIDATION_ERROR');
    expect(unknown.details.issues).toEqual([{ path: 'colour', message: 'is not a query parameter of this endpoint' }]);
    const bad = await expectError(await fetch(`${service.url}/api/quote?tokenId=${tokenId}&side=up&usdAmount=1`), 400, 'VALIDATION_ERROR');
    expect(bad.details.issues.map((i: { path: string }) => i.path)).toEqual(['side']);
  });

  it('a whole-number parameter takes digits only, as an amount does: no exponent, sign, decimal point or space', async () => {
    const quote = (slippage: string) => fetch(`${service.url}/api/quote?tokenId=${tokenId}&side=buy&usdAmount=1&slippageBps=${slippage}`);
    for (const bad of ['1e2', '%2B100', '100.0', '%20100', '0x64', '', '-0']) {
      const e = await expectError(await quote(bad), 400, 'VALIDATION_ERROR');
      expect(e.details.issues, bad).toEqual([{ path: 'slippageBps', message: expect.any(String) }]);
    }
    expect((await quote('100')).status).toBe(200);
    for (const path of ['/tokens?limit=1e1', `/api/tokens/${tokenId}/trades?limit=2.0`, '/api/creators?limit=%2B5', `/api/orders?wallet=${testnet.address}&limit=1e1`, `/api/tokens/${tokenId}/holders?limit=0x10`]) {
      const e = await expectError(await fetch(`${service.url}${path}`), 400, 'VALIDATION_ERROR');
      expect(e.details.issues, path).toEqual([{ path: 'limit', message: expect.any(String) }]);
    }
  });

  it('token_buy_tokens below the minimum buy says what the tokens cost, in dollars, before any 402', async () => {
    const e = await expectError(await post('/entrypoints/token_buy_tokens', { tokenId, tokens: '1000' }), 400, 'VALIDATION_ERROR');
    expect(e.message).toMatch(/^1000 tokens cost \$0\.\d{6}, below the \$0\.01 minimum buy$/);
    expect(e.details).toMatchObject({ minUsd: '0.01', maxUsd: '10000', costUsd: expect.stringMatching(/^0\.\d{6}$/) });
    expect(e.details.issues).toEqual([{ path: 'tokens', message: e.message }]);
  });

  it('sell-authorization refuses what no wallet can sign: 0 tokens, more units than a uint256, the zero address', async () => {
    const ask = (query: string) => fetch(`${service.url}/api/tokens/${tokenId}/sell-authorization?${query}`);
    const maxUnits = (1n << 256n) - 1n;
    const cases: [string, string][] = [
      [`wallet=${testnet.address}&tokens=0`, 'tokens'],
      [`wallet=${testnet.address}&tokens=0.000000000000000000`, 'tokens'],
      [`wallet=${testnet.address}&tokens=${'9'.repeat(90)}`, 'tokens'],
      [`wallet=${testnet.address}&tokens=${formatTokens(maxUnits + 1n)}`, 'tokens'],
      [`wallet=0x0000000000000000000000000000000000000000&tokens=1`, 'wallet'],
    ];
    for (const [query, path] of cases) {
      const e = await expectError(await ask(query), 400, 'VALIDATION_ERROR');
      expect(e.details.issues, query).toEqual([{ path, message: expect.any(String) }]);
    }
    // The largest amount a uint256 holds is still typed data a wallet can sign.
    const largest = await ask(`wallet=${testnet.address}&tokens=${formatTokens(maxUnits)}`);
    expect(largest.status).toBe(200);
    expect((await json(largest)).data.typedData.message.value).toBe(maxUnits.toString());
  });

  it('a tokenAuthorization field past a uint256 (or a nonce that is not a bytes32) is a validation error naming it, before any 402', async () => {
    const body = await signedSellBody(service.url, testnet, tokenId, '1');
    const over = (1n << 256n).toString();
    const cases: [string, string][] = [
      ['value', over],
      ['validAfter', over],
      ['validBefore', over],
      ['validBefore', '9'.repeat(78)],
      ['nonce', `0x${'ab'.repeat(33)}`],
    ];
    for (const [field, value] of cases) {
      const res = await post('/entrypoints/token_sell', { ...body, tokenAuthorization: { ...body.tokenAuthorization, [field]: value } });
      const e = await expectError(res, 400, 'VALIDATION_ERROR');
      expect(e.details.issues, field).toEqual([{ path: `tokenAuthorization.${field}`, message: expect.stringMatching(field === 'nonce' ? /bytes32/ : /2\^256/) }]);
    }
  });

  it('INVALID_JSON when the body is not JSON', async () => {
    await expectError(await post('/entrypoints/token_buy_usd', '{"tokenId": '), 400, 'INVALID_JSON');
  });
});

describe('402', () => {
  it('PAYMENT_REQUIRED carries PAYMENT-REQUIRED whose object is also details (the header without what only the body carries)', async () => {
    const res = await post('/entrypoints/token_buy_usd', { tokenId, usdAmount: '1.5' });
    const e = await expectError(res, 402, 'PAYMENT_REQUIRED');
    const header = decodeBase64Json<any>(res.headers.get('payment-required'));
    const { bazaar: _b, 'offer-receipt': _o, ...kept } = e.details.extensions;
    // The header's extensions without their JSON Schemas (the body keeps them).
    const extensions = Object.fromEntries(Object.entries(kept).map(([k, { schema: _s, ...v }]: [string, any]) => [k, v]));
    const { description: _d, ...resource } = e.details.resource;
    expect(header).toEqual({ ...e.details, resource, extensions });
    expect(e.details.accepts.map((a: any) => a.scheme)).toEqual(['exact', 'exact', 'batch-settlement', 'batch-settlement']); // USDC, then EURC (ceil(1.5 / 1.08)); the same by batch-settlement
    expect(e.details.accepts[0]).toMatchObject({ network: 'eip155:84532', amount: '1500000' });
    expect(e.details.accepts[1]).toMatchObject({ network: 'eip155:84532', amount: '1388889', extra: { name: 'EURC', version: '2' } });
  });

  it('without a hint, create offers production first, then testnet', async () => {
    const res = await post('/tokens', { name: 'A', symbol: 'A' }, { 'x-wallet-address': '' });
    const e = await expectError(res, 402, 'PAYMENT_REQUIRED');
    const exact = e.details.accepts.filter((a: any) => a.scheme === 'exact');
    expect(exact.map((a: any) => a.network)).toEqual(['eip155:8453', 'eip155:8453', 'eip155:84532', 'eip155:84532']);
  });

  it('PAYMENT_INVALID for an undecodable signature, a wrong amount and an expired authorization', async () => {
    const bad = await post('/entrypoints/token_buy_usd', { tokenId, usdAmount: '1' }, { 'payment-signature': 'not base64 json' });
    const e = await expectError(bad, 402, 'PAYMENT_INVALID');
    expect(bad.headers.get('payment-required')).toBeTruthy();
    expect(e.details.reason).toBe('invalid_payment_signature_header');

    const headers = await paidHeaders('/entrypoints/token_buy_usd', { tokenId, usdAmount: '1' });
    const other = await post('/entrypoints/token_buy_usd', { tokenId, usdAmount: '2' }, headers);
    expect((await expectError(other, 402, 'PAYMENT_INVALID')).details.reason).toBe('invalid_amount');

    const expiring = await paidHeaders('/entrypoints/token_buy_usd', { tokenId, usdAmount: '1' });
    clock.offsetMs = 3_600_000;
    const expired = await expectError(await post('/entrypoints/token_buy_usd', { tokenId, usdAmount: '1' }, expiring), 402, 'PAYMENT_INVALID');
    expect(expired.details.reason).toBe('authorization_expired');
    expect(facilitator.settleCalls).toBe(1); // only the create in beforeAll
  });

  it.each(['USDC', 'EURC'] as const)('an expired %s payment says it expired and gives the fresh price in PAYMENT-REQUIRED; nothing is charged', async (asset) => {
    const body = { tokenId, usdAmount: '1' };
    const challenge = await post('/entrypoints/token_buy_usd', body);
    const required = decodeBase64Json<any>(challenge.headers.get('payment-required'));
    const signature = await signPayment(testnet, asset === 'EURC' ? eurcOnly(required) : required);
    const balance = facilitator.balanceOf(TESTNET, testnet.address, asset);
    const settles = facilitator.settleCalls;
    clock.offsetMs = 61_000; // past the authorization's validBefore (60 s) and past the EURC quote's hold
    const res = await post('/entrypoints/token_buy_usd', body, { 'payment-signature': signature });
    const e = await expectError(res, 402, 'PAYMENT_INVALID');
    expect(e.details.reason).toBe('authorization_expired');
    expect(e.message).toMatch(/^The payment's authorization expired at \d{4}-.*nothing was charged\. Sign a new payment for the price in PAYMENT-REQUIRED\.$/);
    const fresh = decodeBase64Json<any>(res.headers.get('payment-required'));
    expect(fresh.accepts.filter((a: any) => a.scheme === 'exact').map((a: any) => [a.extra.name, a.amount])).toEqual([
      ['USDC', '1000000'],
      ['EURC', '925926'], // ceil(1 / 1.08), at a quote taken now
    ]);
    expect(e.details.paymentRequired.accepts).toEqual(fresh.accepts);
    expect(facilitator.balanceOf(TESTNET, testnet.address, asset)).toBe(balance);
    expect(facilitator.settleCalls).toBe(settles);
  });

  it('PAYMENT_INVALID when the signed authorization does not move exactly the price, before the facilitator is asked', async () => {
    const headers = await paidHeaders('/entrypoints/token_buy_usd', { tokenId, usdAmount: '1' });
    const payload = decodeBase64Json<any>(headers['payment-signature']!);
    payload.payload.authorization.value = '1';
    const tampered = Buffer.from(JSON.stringify(payload)).toString('base64');
    const verifies = facilitator.verifyCalls;
    const res = await post('/entrypoints/token_buy_usd', { tokenId, usdAmount: '1' }, { ...headers, 'payment-signature': tampered });
    expect((await expectError(res, 402, 'PAYMENT_INVALID')).details.reason).toBe('authorization_mismatch');
    expect(facilitator.verifyCalls).toBe(verifies);
  });

  it('INSUFFICIENT_FUNDS when the wallet cannot pay', async () => {
    const poor = devAccount(9);
    facilitator.fund('eip155:84532', poor.address, 0n);
    const headers = await paidHeaders('/tokens', { name: 'Poor', symbol: 'POOR' }, poor);
    await expectError(await post('/tokens', { name: 'Poor', symbol: 'POOR' }, headers), 402, 'INSUFFICIENT_FUNDS');
  });

  it('NETWORK_MISMATCH when a production wallet pays on the testnet', async () => {
    // The wallet claims to be a testnet wallet to be offered the testnet, then pays there.
    const headers = await paidHeaders('/tokens', { name: 'Prod', symbol: 'PROD' }, production, testnet.address);
    const res = await post('/tokens', { name: 'Prod', symbol: 'PROD' }, { ...headers, 'x-wallet-address': production.address });
    const e = await expectError(res, 402, 'NETWORK_MISMATCH');
    expect(e.details).toMatchObject({ expected: 'eip155:8453', received: 'eip155:84532' });
    expect(e.details.paymentRequired.accepts.map((a: any) => a.network)).toEqual(['eip155:8453', 'eip155:8453', 'eip155:8453', 'eip155:8453']); // USDC, EURC; by exact, then by batch-settlement
  });
});

describe('404 and 405', () => {
  it('NOT_FOUND, TOKEN_NOT_FOUND, ENTRYPOINT_NOT_FOUND and QUOTE_NOT_FOUND', async () => {
    await expectError(await fetch(`${service.url}/nope`), 404, 'NOT_FOUND');
    await expectError(await fetch(`${service.url}/api/nope`), 404, 'NOT_FOUND');
    await expectError(await fetch(`${service.url}/tokens/tok_00000000000000000000000000`), 404, 'TOKEN_NOT_FOUND');
    await expectError(await post('/entrypoints/token_teleport', {}), 404, 'ENTRYPOINT_NOT_FOUND');
    await expectError(await post('/entrypoints/token_buy_quote', { quoteId: 'qte_00000000000000000000000000' }), 404, 'QUOTE_NOT_FOUND');
  });

  it('METHOD_NOT_ALLOWED with Allow; a GET of a paid URL answers the batch-settlement refund offers', async () => {
    const res = await fetch(`${service.url}/entrypoints/token_buy_usd`, { method: 'DELETE' });
    await expectError(res, 405, 'METHOD_NOT_ALLOWED');
    expect(res.headers.get('allow')).toBe('GET, HEAD, POST');
    const probe = await fetch(`${service.url}/entrypoints/token_buy_usd?network=eip155:84532&asset=EURC`);
    const e = await expectError(probe, 402, 'PAYMENT_REQUIRED');
    expect(e.details.accepts.map((a: any) => [a.scheme, a.network, a.extra.name])).toEqual([['batch-settlement', 'eip155:84532', 'EURC']]);
    const tokens = await fetch(`${service.url}/tokens`, { method: 'DELETE' });
    await expectError(tokens, 405, 'METHOD_NOT_ALLOWED');
    expect(tokens.headers.get('allow')).toBe('GET, HEAD, POST');
  });
});

describe('409 and 410', () => {
  it('SLIPPAGE_EXCEEDED before any payment', async () => {
    const e = await expectError(
      await post('/entrypoints/token_buy_usd', { tokenId, usdAmount: '1', minTokensOut: '999999999' }),
      409,
      'SLIPPAGE_EXCEEDED',
    );
    expect(e.details).toMatchObject({ expected: '999999999', actual: expect.any(String) });
    await expectError(await post('/entrypoints/token_buy_tokens', { tokenId, tokens: '1000000', maxUsd: '0.01' }), 409, 'SLIPPAGE_EXCEEDED');
  });

  it('INSUFFICIENT_BALANCE for a hinted seller without the tokens', async () => {
    const holder = devAccount(6);
    const pay = payingFetch(holder);
    const hint = { 'x-wallet-address': holder.address };
    const held = (await json(await post('/tokens', { name: 'Held', symbol: 'HELD' }, hint, pay))).data.tokenId;
    await post('/entrypoints/token_buy_usd', { tokenId: held, usdAmount: '1' }, hint, pay);
    await settle(service);
    clock.offsetMs = 0;
    const body = await signedSellBody(service.url, testnet, held, '1');
    const e = await expectError(await post('/entrypoints/token_sell', body), 409, 'INSUFFICIENT_BALANCE');
    expect(e.details).toMatchObject({ requested: '1', balance: '0' });
  });

  it('CURVE_CAPACITY_EXCEEDED with maxUsd', async () => {
    const e = await expectError(await post('/entrypoints/token_buy_tokens', { tokenId, tokens: '793100001' }), 409, 'CURVE_CAPACITY_EXCEEDED');
    expect(e.details.maxUsd).toBe('17172.799811');
  });

  it('TOKEN_NETWORK_MISMATCH for a production wallet on a testnet token', async () => {
    await expectError(
      await post('/entrypoints/token_buy_usd', { tokenId, usdAmount: '1' }, { 'x-wallet-address': production.address }),
      409,
      'TOKEN_NETWORK_MISMATCH',
    );
  });

  it('PAYMENT_ALREADY_USED when a signature is replayed for another request', async () => {
    const headers = await paidHeaders('/entrypoints/token_info', { tokenId });
    expect((await post('/entrypoints/token_info', { tokenId }, headers)).status).toBe(200);
    const other = await post('/tokens', { name: 'Other', symbol: 'OTHER' }, headers);
    await expectError(other, 409, 'PAYMENT_ALREADY_USED');
  });

  it('QUOTE_EXPIRED after 60 s', async () => {
    const quote = (await json(await fetch(`${service.url}/api/quote?tokenId=${tokenId}&side=buy&usdAmount=1`))).data;
    clock.offsetMs = 61_000;
    await expectError(await post('/entrypoints/token_buy_quote', { quoteId: quote.quoteId }), 410, 'QUOTE_EXPIRED');
  });
});

describe('413 and 415', () => {
  it('PAYLOAD_TOO_LARGE over 64 KiB, or 1.5 MiB where an image is taken', async () => {
    await expectError(await post('/entrypoints/token_buy_usd', { tokenId: 'x'.repeat(70_000), usdAmount: '1' }), 413, 'PAYLOAD_TOO_LARGE');
    await expectError(await post('/tokens', { name: 'x'.repeat(1_600_000), symbol: 'X' }), 413, 'PAYLOAD_TOO_LARGE');
    await expectError(await post('/tokens', { name: 'x'.repeat(70_000), symbol: 'X' }), 400, 'VALIDATION_ERROR');
  });

  it('UNSUPPORTED_MEDIA_TYPE for a POST that is not JSON', async () => {
    const res = await fetch(`${service.url}/tokens`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hi' });
    await expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });
});

/** A raw HTTP/1.1 exchange, for requests fetch would never send. */
function rawExchange(request: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const { hostname, port } = new URL(service.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(request));
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (data += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = data.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
    });
  });
}

describe('requests Node refuses before routing', () => {
  it('431 HEADERS_TOO_LARGE with the JSON envelope when the headers exceed 16 KB', async () => {
    const res = await rawExchange(`GET /tokens HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(res.status).toBe(431);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['x-request-id']).toBeTruthy();
    expect(res.headers['api-version']).toBe('1');
    expect(JSON.parse(res.body)).toEqual({
      success: false,
      error: { code: 'HEADERS_TOO_LARGE', message: expect.stringContaining('16 KB'), details: { requestId: res.headers['x-request-id'] } },
    });
  });

  it('400 BAD_REQUEST with the JSON envelope for a request that is not HTTP', async () => {
    const res = await rawExchange('HELLO THERE\r\n\r\n');
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).error.code).toBe('BAD_REQUEST');
  });
});

describe('5xx', () => {
  it('FACILITATOR_ERROR (502) when the facilitator cannot answer, nothing charged', async () => {
    let settles = 0;
    const broken = await startTestService({
      ports: {
        clock,
        detector,
        facilitator: {
          verify: () => Promise.reject(new FacilitatorError('The facilitator answered verify with HTTP 500.')),
          settle: () => {
            settles++;
            return Promise.reject(new Error('must not settle'));
          },
          supported: () => facilitator.supported(),
        },
      },
    });
    try {
      const body = { name: 'A', symbol: 'A' };
      const headers = await paidHeaders('/tokens', body, testnet, testnet.address, broken.url);
      await expectError(await post('/tokens', body, headers, fetch, broken.url), 502, 'FACILITATOR_ERROR');
      expect(settles).toBe(0);
    } finally {
      await broken.stop();
    }
  });

  it('an unexpected settle error is treated as unknown (202, SETTLING), never as "nothing charged"', async () => {
    const odd = await startTestService({
      ports: {
        clock,
        detector,
        facilitator: {
          verify: (p, r) => facilitator.verify(p, r),
          settle: () => Promise.reject(new TypeError('socket hang up')),
          supported: () => facilitator.supported(),
        },
      },
    });
    try {
      const body = { name: 'Odd', symbol: 'ODD' };
      const signed = await paidHeaders('/tokens', body, testnet, testnet.address, odd.url);
      const res = await post('/tokens', body, signed, fetch, odd.url);
      expect(res.status).toBe(202);
      const { paymentId } = (await json(res)).data;
      expect((await json(await fetch(`${odd.url}/api/payments/${paymentId}`))).data.state).toBe('SETTLING');
    } finally {
      await odd.stop();
    }
  });

  it('a settlement the facilitator refuses answers 202 and stays SETTLING: only the chain can say nothing moved', async () => {
    const headers = await paidHeaders('/entrypoints/token_info', { tokenId });
    facilitator.failNextSettle('invalid_exact_evm_transaction_failed');
    const before = facilitator.settled.length;
    const settles = facilitator.settleCalls;
    const res = await post('/entrypoints/token_info', { tokenId }, headers);
    expect(res.status).toBe(202);
    expect(res.headers.get('location')).toMatch(/^\/api\/payments\/pay_/);
    const body = await json(res);
    expect(body.data).toMatchObject({ status: 'pending', reason: 'invalid_exact_evm_transaction_failed' });
    expect(facilitator.settled.length).toBe(before);
    const payment = await json(await fetch(`${service.url}/api/payments/${body.data.paymentId}`));
    expect(payment.data.state).toBe('SETTLING');
    // The same signature again gets the same stored answer, not a second settlement.
    const again = await post('/entrypoints/token_info', { tokenId }, headers);
    expect(again.status).toBe(202);
    expect(facilitator.settleCalls).toBe(settles + 1);
  });

  it('202 pending when the settlement outcome is unknown, never a fresh 402', async () => {
    const headers = await paidHeaders('/entrypoints/token_info', { tokenId });
    facilitator.timeoutNextSettle();
    const res = await post('/entrypoints/token_info', { tokenId }, headers);
    expect(res.status).toBe(202);
    const body = await json(res);
    expect(body).toMatchObject({ success: true, data: { status: 'pending', paymentId: expect.stringMatching(/^pay_/) } });
    const payment = await json(await fetch(`${service.url}/api/payments/${body.data.paymentId}`));
    expect(payment.data.state).toBe('SETTLING');
  });

  it('NETWORK_DETECTION_UNAVAILABLE (503, Retry-After) when detection is down and configured to fail closed', async () => {
    const down = await startTestService({ ports: { detector: { detect: () => Promise.reject(new Error('rpc down')) }, facilitator } }, { NETWORK_DETECTION_FAIL_CLOSED: 'true' });
    try {
      const res = await fetch(`${down.url}/tokens`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-wallet-address': testnet.address },
        body: JSON.stringify({ name: 'A', symbol: 'A' }),
      });
      await expectError(res, 503, 'NETWORK_DETECTION_UNAVAILABLE');
      expect(res.headers.get('retry-after')).toBe('5');
    } finally {
      await down.stop();
    }
  });

  it('a database outage answers 503 and logs the driver cause with the request id', async () => {
    const lines: { message: string; fields?: Record<string, unknown> }[] = [];
    const { asUnavailable } = await import('../../src/adapters/persistence/mikro-orm/unavailable.js');
    const refused = () => Promise.reject(asUnavailable(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })));
    const down = await startTestService({
      ports: {
        facilitator,
        logger: { debug() {}, info() {}, warn() {}, error: (message, fields) => lines.push({ message, fields }) },
        uow: { run: refused, transaction: refused, close: async () => {} },
      },
    });
    try {
      const res = await fetch(`${down.url}/tokens`, { headers: { 'x-request-id': 'trace-503' } });
      const e = await expectError(res, 503, 'SERVICE_UNAVAILABLE');
      expect(JSON.stringify(e)).not.toContain('ECONNREFUSED');
      expect(lines).toContainEqual({
        message: 'answered with a server error',
        fields: expect.objectContaining({ requestId: 'trace-503', status: 503, causeCode: 'ECONNREFUSED' }),
      });
    } finally {
      await down.stop();
    }
  });

  it('INTERNAL_ERROR is generic and names the request id', async () => {
    const broken = await startTestService({
      ports: {
        facilitator,
        uow: {
          run: () => Promise.reject(new Error('secret database detail')),
          transaction: () => Promise.reject(new Error('secret database detail')),
          close: async () => {},
        },
      },
    });
    try {
      const res = await fetch(`${broken.url}/tokens`, { headers: { 'x-request-id': 'trace-123' } });
      const e = await expectError(res, 500, 'INTERNAL_ERROR');
      expect(e.message).toContain('trace-123');
      expect(JSON.stringify(e)).not.toContain('secret');
      // The same outage makes /health answer 503 with Retry-After: the database is required.
      const health = await fetch(`${broken.url}/health`);
      expect(health.status).toBe(503);
      expect(health.headers.get('retry-after')).toBe('5');
      expect((await json(health)).data).toMatchObject({ status: 'degraded', checks: { database: 'down' } });
    } finally {
      await broken.stop();
    }
  });
});
