/**
 * Signed offers and receipts as an x402 client meets them: the client's own helpers of
 * @x402/extensions/offer-receipt find the offers in our 402, pick the requirement they sign, read
 * the receipt from PAYMENT-RESPONSE and verify both against the service's address — and a receipt
 * with one byte changed does not verify.
 */
import { encodePaymentResponseHeader } from '@x402/core/http';
import { validateDiscoveryExtension } from '@x402/extensions/bazaar';
import {
  decodeSignedOffers,
  extractOffersFromPaymentRequired,
  extractReceiptFromResponse,
  findAcceptsObjectFromSignedOffer,
  verifyOfferSignatureEIP712,
  verifyReceiptMatchesOffer,
  verifyReceiptSignatureEIP712,
  type EIP712SignedReceipt,
} from '@x402/extensions/offer-receipt';
import { generatePrivateKey } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { ViemReceiptSigner } from '../../../src/adapters/receipts/viem/viem-receipt-signer.js';
import { ALL_NETWORKS, TESTNET } from '../../../src/domain/network.js';
import { usdcPaymentRequired } from '../../support/x402-client.js';

const RESOURCE = { url: 'https://launchpad.example.com/entrypoints/token_info', description: 'info', mimeType: 'application/json' };
const PAYER = '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc';
const TX = '0x5f1e9c4b2a7d3e8f6a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f';

// The package's own JSON-Schema check of an extension's `info` against its `schema` (exported with Bazaar, generic).
const validates = (schema: object, info: unknown) => validateDiscoveryExtension({ info, schema } as never).valid;

/** The same hex string with one byte (two hex digits) changed at `at`. */
function oneByteChanged(hex: string, at: number): `0x${string}` {
  const i = 2 + at * 2;
  const byte = parseInt(hex.slice(i, i + 2), 16) ^ 0x01;
  return `${hex.slice(0, i)}${byte.toString(16).padStart(2, '0')}${hex.slice(i + 2)}` as `0x${string}`;
}

describe('ViemReceiptSigner offers, signed once per resource and price for a few seconds', () => {
  const validUntil = (e: Awaited<ReturnType<ViemReceiptSigner['signOffers']>>) =>
    decodeSignedOffers(e.info.offers as never).map((o) => (o as unknown as { validUntil: number }).validUntil);

  it('a 402 repeated within the reuse window carries the same offers; another price, resource or a later 402 is signed afresh', async () => {
    let now = 1_000_000;
    const signer = new ViemReceiptSigner({ key: generatePrivateKey(), offerReuseMs: 5_000, now: () => now });
    const accepts = usdcPaymentRequired(RESOURCE, [TESTNET], 1_000n).accepts;
    const first = await signer.signOffers(RESOURCE.url, accepts);
    now += 4_999;
    expect(await signer.signOffers(RESOURCE.url, accepts)).toBe(first);
    const otherPrice = await signer.signOffers(RESOURCE.url, usdcPaymentRequired(RESOURCE, [TESTNET], 2_000n).accepts);
    expect(otherPrice).not.toBe(first);
    expect(decodeSignedOffers(otherPrice.info.offers as never)[0]).toMatchObject({ amount: '2000' });
    expect(await signer.signOffers(`${RESOURCE.url}?other`, accepts)).not.toBe(first);
    now += 1;
    const later = await signer.signOffers(RESOURCE.url, accepts);
    expect(later).not.toBe(first);
    for (const until of validUntil(first)) expect(until * 1000).toBeGreaterThanOrEqual(Date.now() + 55_000 - 10_000); // still most of its 60 s
  });

  it('offerReuseMs 0 signs every 402', async () => {
    const signer = new ViemReceiptSigner({ key: generatePrivateKey(), offerReuseMs: 0 });
    const accepts = usdcPaymentRequired(RESOURCE, [TESTNET], 1_000n).accepts;
    expect(await signer.signOffers(RESOURCE.url, accepts)).not.toBe(await signer.signOffers(RESOURCE.url, accepts));
  });
});

describe('ViemReceiptSigner, seen by an x402 client', () => {
  const signer = new ViemReceiptSigner({ key: generatePrivateKey() });

  it('the 402’s offers are found, matched to their requirement and verified by the client helpers', async () => {
    const required = usdcPaymentRequired(RESOURCE, ALL_NETWORKS, 1_000n);
    const extension = await signer.signOffers(RESOURCE.url, required.accepts);
    expect(validates(extension.schema, extension.info)).toBe(true);
    expect(validates(extension.schema, { offers: 'none' })).toBe(false);
    const offered = { ...required, extensions: { 'offer-receipt': extension } };
    const offers = extractOffersFromPaymentRequired(offered as never);
    expect(offers).toHaveLength(2);
    for (const [i, decoded] of decodeSignedOffers(offers).entries()) {
      expect(findAcceptsObjectFromSignedOffer(decoded, required.accepts as never)).toEqual(required.accepts[i]);
      const verified = await verifyOfferSignatureEIP712(decoded.signedOffer as never);
      expect(verified.signer).toBe(signer.signer);
    }
  });

  it('the receipt in PAYMENT-RESPONSE verifies, matches the offer paid, and fails after one byte is changed', async () => {
    const required = usdcPaymentRequired(RESOURCE, [TESTNET], 1_000n);
    const [offer] = decodeSignedOffers((await signer.signOffers(RESOURCE.url, required.accepts)).info.offers as never);
    const extension = await signer.signReceipt({ resourceUrl: RESOURCE.url, payer: PAYER, network: TESTNET, transaction: TX });
    expect(validates(extension.schema, extension.info)).toBe(true);
    const header = encodePaymentResponseHeader({ success: true, transaction: TX, network: TESTNET, payer: PAYER, extensions: { 'offer-receipt': extension } });
    const receipt = extractReceiptFromResponse(new Response(null, { headers: { 'PAYMENT-RESPONSE': header } })) as EIP712SignedReceipt;
    expect(receipt).toEqual(extension.info.receipt);
    expect(verifyReceiptMatchesOffer(receipt, offer!, [PAYER])).toBe(true);
    expect((await verifyReceiptSignatureEIP712(receipt)).signer).toBe(signer.signer);

    // One byte of the signature, or of the signed payload, changed: not our signer any more.
    for (const at of [0, 31, 40, 63]) {
      const forged = { ...receipt, signature: oneByteChanged(receipt.signature, at) };
      const recovered = await verifyReceiptSignatureEIP712(forged).then(
        (v) => v.signer,
        () => null,
      );
      expect(recovered, `signature byte ${at}`).not.toBe(signer.signer);
    }
    const otherTx = { ...receipt, payload: { ...receipt.payload, transaction: oneByteChanged(receipt.payload.transaction, 5) } };
    expect((await verifyReceiptSignatureEIP712(otherTx)).signer).not.toBe(signer.signer);
    const otherPayer = { ...receipt, payload: { ...receipt.payload, payer: oneByteChanged(PAYER, 19) } };
    expect((await verifyReceiptSignatureEIP712(otherPayer)).signer).not.toBe(signer.signer);
  });
});
