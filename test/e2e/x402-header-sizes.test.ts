/**
 * The x402 headers stay small enough for real proxies in the default configuration (decision
 * 0034, docs/operations.md "Behind a proxy"): PAYMENT-REQUIRED, and the PAYMENT-SIGNATURE the
 * official client builds from it (it echoes every extension of the header), each well under 8 KiB
 * — nginx's default `large_client_header_buffers 4 8k` refuses a longer request header with 400 —
 * and every response's header block within 4 KiB, nginx's default `proxy_buffer_size` on 4 KiB
 * pages (a larger one is a 502 there). The worst cases: a create with no wallet named (both
 * networks, both assets), a refusal's 402 with its message, a payment identifier echoed.
 */
import { request } from 'node:http';
import { x402Client } from '@x402/core/client';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import { ExactEvmScheme } from '@x402/evm';
import { appendPaymentIdentifierToExtensions } from '@x402/extensions/payment-identifier';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/bootstrap/compose.js';
import { json, settle, startTestService } from '../support/service.js';
import { decodeBase64Json, devAccount, payingFetch } from '../support/x402-client.js';

const HEADER_LIMIT = 8 * 1024;
const RESPONSE_HEADER_BLOCK_LIMIT = 4 * 1024;
const wallet = devAccount(6);
let service: RunningService;
let tokenId: string;

/** A response as a proxy reads it: the status line and every header, byte for byte. */
function raw(path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; block: number; headers: Record<string, string>; body: any }> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, service.url);
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        let block = `HTTP/1.1 ${res.statusCode} ${res.statusMessage}\r\n`.length + 2;
        for (let i = 0; i < res.rawHeaders.length; i += 2) block += `${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}\r\n`.length;
        resolve({ status: res.statusCode!, block, headers: res.headers as Record<string, string>, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      });
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** The PAYMENT-SIGNATURE the official client sends for a 402's header, with a payment identifier as a client that wants one adds it. */
async function signatureFor(paymentRequired: any): Promise<string> {
  const client = x402Client.fromConfig({ schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(wallet) }], spendControls: false });
  const payload = await client.createPaymentPayload(paymentRequired);
  if (payload.extensions) appendPaymentIdentifierToExtensions(payload.extensions, 'pay_0123456789abcdef0123456789abcdef');
  return encodePaymentSignatureHeader(payload);
}

beforeAll(async () => {
  service = await startTestService({}, { RATE_LIMIT_FREE_PER_MINUTE: '100' }); // its headers count too
  const created = await payingFetch(wallet)(`${service.url}/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address },
    body: JSON.stringify({ name: 'Sizes', symbol: 'SIZE', description: 'x'.repeat(500) }),
  });
  tokenId = (await json(created)).data.tokenId;
  await settle(service);
});
afterAll(async () => {
  await service.stop();
});

describe('x402 headers pass default proxy buffers', () => {
  const cases = () => [
    ['create, no wallet named (both networks)', '/tokens', { name: 'A Rather Long Token Name Here', symbol: 'LONGSYMBOL' }, {}],
    ['create, the wallet named', '/entrypoints/token_create/invoke', { name: 'Named', symbol: 'NAMED' }, { 'x-wallet-address': wallet.address }],
    ['buy', '/entrypoints/token_buy_usd', { tokenId, usdAmount: '12.5' }, {}],
    ['buy by tokens', '/entrypoints/token_buy_tokens', { tokenId, tokens: '1000000' }, {}],
    ['info', '/entrypoints/token_info', { tokenId }, {}],
    ['info, the wallet named', '/entrypoints/token_info', { tokenId }, { 'x-wallet-address': wallet.address }],
  ] as const;
  /** A client that named its wallet gets no Sign-In-With-X challenge (decision 0052), but where a proof later grants access (token_info). */
  const challenged = (name: string) => !name.includes('the wallet named') || name.startsWith('info');

  it('PAYMENT-REQUIRED and the official client\u2019s PAYMENT-SIGNATURE stay under 8 KiB; the 402 header block under 4 KiB', async () => {
    const sizes: Record<string, { required: number; signature: number; block: number }> = {};
    for (const [name, path, body, headers] of cases()) {
      const res = await raw(path, body, headers);
      expect(res.status, name).toBe(402);
      const header = res.headers['payment-required']!;
      const signature = await signatureFor(decodeBase64Json(header));
      sizes[name] = { required: header.length, signature: signature.length, block: res.block };
      expect(header.length, name).toBeLessThan(HEADER_LIMIT);
      expect(signature.length, name).toBeLessThan(HEADER_LIMIT);
      expect(res.block, name).toBeLessThan(RESPONSE_HEADER_BLOCK_LIMIT);
      // The body keeps everything the header leaves out.
      const siwx = challenged(name) ? ['sign-in-with-x'] : [];
      // A buy by tokens offers upto too, and the EIP-2612 gas sponsoring a payer acts on (docs/api.md "Pay up to").
      const gasless = name === 'buy by tokens' ? ['eip2612GasSponsoring'] : [];
      expect(Object.keys(res.body.error.details.extensions).sort(), name).toEqual(['bazaar', ...gasless, 'offer-receipt', 'payment-identifier', ...siwx]);
      expect(Object.keys(decodeBase64Json<any>(header).extensions).sort(), name).toEqual([...gasless, 'payment-identifier', ...siwx]);
    }
    console.info('x402 header sizes (bytes)', sizes);
  });

  it('a refusal\u2019s 402 (its message in the header) and a paid answer\u2019s PAYMENT-RESPONSE fit too', async () => {
    const challenge = await raw('/tokens', { name: 'Refused', symbol: 'REF' }, { 'x-wallet-address': wallet.address });
    const required = decodeBase64Json<any>(challenge.headers['payment-required'] ?? null);
    const tampered = await signatureFor({ ...required, accepts: [{ ...required.accepts[0], amount: '1' }] });
    const refused = await raw('/tokens', { name: 'Refused', symbol: 'REF' }, { 'payment-signature': tampered });
    expect([refused.status, refused.body.error.code]).toEqual([402, 'PAYMENT_INVALID']);
    expect(refused.headers['payment-required']!.length).toBeLessThan(HEADER_LIMIT);
    expect(refused.block).toBeLessThan(RESPONSE_HEADER_BLOCK_LIMIT);

    const paid = await raw('/tokens', { name: 'Refused', symbol: 'REF' }, { 'payment-signature': await signatureFor(required) });
    expect(paid.status).toBe(201);
    expect(paid.headers['payment-response']!.length).toBeLessThan(HEADER_LIMIT);
    expect(paid.block).toBeLessThan(RESPONSE_HEADER_BLOCK_LIMIT);
  });
});
