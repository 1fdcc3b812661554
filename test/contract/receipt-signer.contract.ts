/**
 * What every ReceiptSigner does: one signed offer per requirement of a 402, a signed receipt for
 * a settlement, each recovering to the signer — and to anything else once a byte is changed.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../src/app/kit/default-settings.js';
import { requirementsFor } from '../../src/app/payments/requirements.js';
import { ALL_NETWORKS, TESTNET } from '../../src/domain/network.js';
import type { ReceiptSigner, SignedOffer, SignedReceipt } from '../../src/ports/receipt-signer.js';

export interface ReceiptSignerHarness {
  signer: ReceiptSigner;
  now(): Date;
  /** Who signed this offer or receipt, by the adapter's own verification; null if nobody did. */
  recover(signed: SignedOffer | SignedReceipt): Promise<string | null>;
}

const RESOURCE = 'https://launchpad.example.com/entrypoints/token_info';
const TX = `0x${'ab'.repeat(32)}`;
const PAYER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

/** The payload of an EIP-712 offer or receipt (the format every signer here produces). */
function payloadOf(signed: SignedOffer | SignedReceipt): Record<string, unknown> {
  if (signed.format !== 'eip712') throw new Error(`expected the eip712 format, got ${signed.format}`);
  return signed.payload as unknown as Record<string, unknown>;
}

/** The signed object with one character of its payload or signature changed. */
function tampered<T extends SignedOffer | SignedReceipt>(signed: T, where: 'payload' | 'signature'): T {
  if (where === 'signature') {
    const s = signed.signature;
    const i = s.length - 10;
    return { ...signed, signature: s.slice(0, i) + (s[i] === 'a' ? 'b' : 'a') + s.slice(i + 1) };
  }
  const payload = payloadOf(signed);
  const key = 'amount' in payload ? 'amount' : 'transaction';
  const value = String(payload[key]);
  return { ...signed, payload: { ...payload, [key]: value.slice(0, -1) + (value.endsWith('1') ? '2' : '1') } } as T;
}

export function receiptSignerContract(name: string, make: () => Promise<ReceiptSignerHarness>) {
  describe(`ReceiptSigner contract: ${name}`, () => {
    const accepts = ALL_NETWORKS.map((n) => requirementsFor(n, 1_000n, DEFAULT_SETTINGS.payTo[n]));

    it('signs one offer per requirement, in order, carrying exactly its terms', async () => {
      const h = await make();
      const { info, schema } = await h.signer.signOffers(RESOURCE, accepts);
      expect(schema).toEqual(expect.any(Object));
      expect(info.offers).toHaveLength(accepts.length);
      const now = Math.floor(h.now().getTime() / 1000);
      for (const [i, offer] of info.offers.entries()) {
        const r = accepts[i]!;
        expect(offer).toMatchObject({ format: 'eip712', acceptIndex: i });
        const payload = payloadOf(offer);
        expect(payload).toMatchObject({ version: 1, resourceUrl: RESOURCE, scheme: r.scheme, network: r.network, asset: r.asset, payTo: r.payTo, amount: r.amount });
        expect(Math.abs((payload.validUntil as number) - (now + r.maxTimeoutSeconds))).toBeLessThanOrEqual(2);
        expect(await h.recover(offer)).toBe(h.signer.signer);
      }
    });

    it('signs a receipt of the settlement that recovers to the signer', async () => {
      const h = await make();
      const { info } = await h.signer.signReceipt({ resourceUrl: RESOURCE, payer: PAYER, network: TESTNET, transaction: TX });
      const payload = payloadOf(info.receipt);
      expect(payload).toMatchObject({ version: 1, resourceUrl: RESOURCE, payer: PAYER, network: TESTNET, transaction: TX });
      expect(Math.abs((payload.issuedAt as number) - Math.floor(h.now().getTime() / 1000))).toBeLessThanOrEqual(2);
      expect(await h.recover(info.receipt)).toBe(h.signer.signer);
    });

    it('one changed character in a payload or a signature no longer recovers to the signer', async () => {
      const h = await make();
      const offer = (await h.signer.signOffers(RESOURCE, accepts)).info.offers[0]!;
      const receipt = (await h.signer.signReceipt({ resourceUrl: RESOURCE, payer: PAYER, network: TESTNET, transaction: TX })).info.receipt;
      for (const signed of [offer, receipt]) {
        for (const where of ['payload', 'signature'] as const) {
          expect(await h.recover(tampered(signed, where)).catch(() => null), where).not.toBe(h.signer.signer);
        }
      }
    });
  });
}
