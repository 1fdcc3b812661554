/**
 * Malformed extension inputs never hurt (#17): a bad SIGN-IN-WITH-X header gets the plain 402
 * and never blocks paying; a payment whose payload carries broken extension entries pays as
 * any other. Never a 500.
 */
import { x402Client } from '@x402/core/client';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import { ExactEvmScheme } from '@x402/evm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/bootstrap/compose.js';
import { decodeBase64Json, devAccount, payingFetch } from '../support/x402-client.js';
import { json, startTestService } from '../support/service.js';

const wallet = devAccount(7);
const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v), 'utf8').toString('base64');
let service: RunningService;
let tokenId: string;

beforeAll(async () => {
  service = await startTestService();
  const res = await post('/tokens', { name: 'Robust', symbol: 'RBST' }, { 'x-wallet-address': wallet.address }, payingFetch(wallet));
  tokenId = (await json(res)).data.tokenId;
});
afterAll(async () => {
  await service.stop();
});

function post(path: string, body: unknown, headers: Record<string, string> = {}, f: typeof fetch = fetch) {
  return f(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

const BAD_PROOFS = [
  'not base64 at all!',
  b64('null'),
  b64({}),
  b64({ domain: 'evil.example', address: wallet.address, uri: 'https://evil.example/', version: '1', chainId: 'eip155:84532', type: 'eip191', nonce: 'abcdefgh1', issuedAt: new Date().toISOString(), signature: '0x00' }),
  b64('x'.repeat(4_000)),
];

describe('a malformed SIGN-IN-WITH-X header', () => {
  it('gets the plain 402 (both networks), never an error of its own', async () => {
    for (const proof of BAD_PROOFS) {
      const res = await post('/entrypoints/token_info', { tokenId }, { 'sign-in-with-x': proof });
      expect(res.status, proof.slice(0, 20)).toBe(402);
      const body = await json(res);
      expect(body.error.code).toBe('PAYMENT_REQUIRED');
      expect(body.error.details.accepts.map((a: { network: string }) => a.network)).toEqual(['eip155:8453', 'eip155:8453', 'eip155:84532', 'eip155:84532']);
      expect(body.error.details.siwx, proof.slice(0, 20)).toMatchObject({ reason: expect.stringMatching(/^(malformed|wrong_domain|bad_signature)$/) });
    }
  });

  it('never blocks paying', async () => {
    const res = await post('/entrypoints/token_info', { tokenId }, { 'sign-in-with-x': BAD_PROOFS[3]!, 'x-wallet-address': wallet.address }, payingFetch(wallet));
    expect(res.status).toBe(200);
  });
});

describe('a payment whose payload carries broken extension entries', () => {
  const client = x402Client.fromConfig({ schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(wallet) }], spendControls: false });
  const cases: Record<string, unknown>[] = [
    { 'payment-identifier': { info: { required: false, id: 'too short' } } },
    { 'payment-identifier': 'not an object' },
    { 'sign-in-with-x': 42, 'offer-receipt': null },
    { bazaar: { info: { input: { type: 'ftp' } }, schema: { $ref: 'https://evil.example/schema' } } },
  ];

  it.each(cases.map((c) => [Object.keys(c).join('+'), c]))('pays as any other (%s)', async (_name, extensions) => {
    const unpaid = await post('/entrypoints/token_info', { tokenId }, { 'x-wallet-address': wallet.address });
    const required = decodeBase64Json<any>(unpaid.headers.get('payment-required'));
    const payload = await client.createPaymentPayload(required);
    const signature = encodePaymentSignatureHeader({ ...payload, extensions: { ...payload.extensions, ...extensions } });
    const res = await post('/entrypoints/token_info', { tokenId }, { 'payment-signature': signature });
    expect(res.status).toBe(200);
    expect((await json(res)).operation).toBe('token_info');
  });
});
