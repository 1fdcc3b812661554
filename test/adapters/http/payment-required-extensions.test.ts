/**
 * The HTTP adapter's hook for extensions made per 402 (signed offers, SIWx challenges): they join
 * every 402 of a paid route — body and PAYMENT-REQUIRED alike, for exactly that 402's accepts —
 * and a failing maker costs the extensions, never the 402.
 */
import type { Server } from 'node:http';
import { verifyOfferSignatureEIP712 } from '@x402/extensions/offer-receipt';
import { generatePrivateKey } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpApp } from '../../../src/adapters/http/koa/http-app.js';
import { close, listen } from '../../../src/adapters/http/koa/server.js';
import { ViemReceiptSigner } from '../../../src/adapters/receipts/viem/viem-receipt-signer.js';
import type { RunningService } from '../../../src/bootstrap/compose.js';
import type { PaymentRequirements } from '../../../src/ports/facilitator.js';
import { decodeBase64Json, devAccount, payingFetch } from '../../support/x402-client.js';
import { json, startTestService } from '../../support/service.js';

const wallet = devAccount(8);
const signer = new ViemReceiptSigner({ key: generatePrivateKey() });
let service: RunningService;
let enriched: Server;
let failing: Server;
let tokenId: string;
const url = (server: Server) => `http://127.0.0.1:${(server.address() as { port: number }).port}`;

beforeAll(async () => {
  service = await startTestService();
  enriched = await listen(
    createHttpApp(service.application, {
      paymentRequiredExtensions: async ({ resource, accepts }) => ({
        'offer-receipt': await signer.signOffers(resource.url, accepts as PaymentRequirements[]),
      }),
    }),
    0,
    '127.0.0.1',
  );
  failing = await listen(
    createHttpApp(service.application, {
      paymentRequiredExtensions: async () => {
        throw new Error('signer down');
      },
    }),
    0,
    '127.0.0.1',
  );
  const res = await payingFetch(wallet)(`${url(enriched)}/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address },
    body: JSON.stringify({ name: 'Offers', symbol: 'OFR' }),
  });
  expect(res.status).toBe(201);
  tokenId = (await json(res)).data.tokenId;
});
afterAll(async () => {
  await close(enriched);
  await close(failing);
  await service.stop();
});

const post = (base: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base}/entrypoints/token_info`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

describe('extensions made per 402', () => {
  it('sign exactly the 402’s accepts, beside Bazaar in the body; the header carries neither (it stays small)', async () => {
    for (const [headers, networks] of [
      // USDC then EURC per network by exact, then by batch-settlement (USDC only when both networks are offered: the header's size)
      [{}, ['eip155:8453', 'eip155:8453', 'eip155:84532', 'eip155:84532', 'eip155:8453', 'eip155:84532']],
      [{ 'x-wallet-address': wallet.address }, ['eip155:84532', 'eip155:84532', 'eip155:84532', 'eip155:84532']],
    ] as const) {
      const res = await post(url(enriched), { tokenId }, headers);
      expect(res.status).toBe(402);
      const header = decodeBase64Json<any>(res.headers.get('payment-required'));
      const body = (await json(res)).error.details;
      expect(header.accepts).toEqual(body.accepts);
      expect(header.extensions).toBeUndefined();
      expect(body.accepts.map((a: PaymentRequirements) => a.network)).toEqual(networks);
      expect(Object.keys(body.extensions).sort()).toEqual(['bazaar', 'offer-receipt']);
      const offers = body.extensions['offer-receipt'].info.offers;
      expect(offers).toHaveLength(networks.length);
      for (const [i, offer] of offers.entries()) {
        expect(offer.payload).toMatchObject({ network: networks[i], amount: body.accepts[i].amount, resourceUrl: body.resource.url });
        expect((await verifyOfferSignatureEIP712(offer)).signer).toBe(signer.signer);
      }
    }
  });

  it('join a refused payment’s 402 too', async () => {
    const res = await post(url(enriched), { tokenId }, { 'payment-signature': 'bm90IGpzb24=' });
    expect(res.status).toBe(402);
    const { error } = await json(res);
    expect(error.code).toBe('PAYMENT_INVALID');
    expect(error.details.paymentRequired.extensions['offer-receipt'].info.offers).toHaveLength(6);
  });

  it('a maker that fails costs its extensions, never the 402', async () => {
    const res = await post(url(failing), { tokenId });
    expect(res.status).toBe(402);
    expect(res.headers.get('payment-required')).toBeTruthy();
    expect(Object.keys((await json(res)).error.details.extensions)).toEqual(['bazaar']);
  });
});
