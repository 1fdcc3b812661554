/**
 * Malformed extension inputs never hurt (docs/api.md "x402 extensions"): a bad SIGN-IN-WITH-X header gets the plain 402
 * and never blocks paying; a proof claiming to outlive its nonce's record is not taken; a payment
 * whose payload carries broken extension entries pays as any other. Never a 500.
 */
import { x402Client } from '@x402/core/client';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import { ExactEvmScheme } from '@x402/evm';
import { createSIWxPayload, encodeSIWxHeader, type SIWxExtensionInfo } from '@x402/extensions/sign-in-with-x';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/bootstrap/compose.js';
import { TESTNET } from '../../src/domain/network.js';
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
      expect(body.error.details.accepts.map((a: { network: string }) => a.network)).toEqual(['eip155:8453', 'eip155:8453', 'eip155:84532', 'eip155:84532', 'eip155:8453', 'eip155:84532']); // exact, then batch-settlement (USDC)
      expect(body.error.details.siwx, proof.slice(0, 20)).toMatchObject({ reason: expect.stringMatching(/^(malformed|wrong_domain|bad_signature)$/) });
    }
  });

  it('never blocks paying', async () => {
    const res = await post('/entrypoints/token_info', { tokenId }, { 'sign-in-with-x': BAD_PROOFS[3]!, 'x-wallet-address': wallet.address }, payingFetch(wallet));
    expect(res.status).toBe(200);
  });
});

describe('a SIGN-IN-WITH-X proof that claims to outlive its nonce', () => {
  const prover = devAccount(6); // has paid for nothing here: no access grant answers for it
  const networks = async (res: Response) => (await json(res)).error.details.accepts.map((a: { network: string }) => a.network);
  const sign = async (info: SIWxExtensionInfo) =>
    encodeSIWxHeader(await createSIWxPayload({ ...info, chainId: TESTNET, type: 'eip191' }, prover, `${service.url}/entrypoints/token_info`));

  it('(expirationTime in 2999) is not taken: the plain 402 says expires_too_late; the challenge as issued is taken', async () => {
    const unpaid = await post('/entrypoints/token_info', { tokenId });
    const challenge = decodeBase64Json<any>(unpaid.headers.get('payment-required')).extensions['sign-in-with-x'] as { info: SIWxExtensionInfo };
    const forever = await sign({ ...challenge.info, expirationTime: '2999-01-01T00:00:00.000Z' });
    const refused = await post('/entrypoints/token_info', { tokenId }, { 'sign-in-with-x': forever });
    expect(refused.status).toBe(402);
    const body = await json(refused.clone());
    expect(body.error.details.siwx).toEqual({ reason: 'expires_too_late', code: 'invalid_siwx_expiration_too_far', message: expect.stringContaining('at most 300 s') });
    expect(await networks(refused)).toEqual(['eip155:8453', 'eip155:8453', 'eip155:84532', 'eip155:84532', 'eip155:8453', 'eip155:84532']); // the wallet is not proven

    // The same challenge as issued (5 minutes) proves the wallet: the 402 offers only its network.
    const proven = await post('/entrypoints/token_info', { tokenId }, { 'sign-in-with-x': await sign(challenge.info) });
    expect(proven.status).toBe(402);
    expect((await json(proven.clone())).error.details.siwx).toBeUndefined();
    expect(await networks(proven)).toEqual([TESTNET, TESTNET, TESTNET, TESTNET]);
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
