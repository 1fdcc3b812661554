/**
 * The Facilitator port: real EIP-3009 verification and settlement. Payloads are signed by the
 * official @x402/evm client scheme, so the shapes are exactly what x402 clients send.
 */
import { x402Client } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm';
import { ExactEvmSchemeV1 } from '@x402/evm/v1';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { fromV1Payment, toV1Requirements, type V1PaymentPayload } from '../../src/adapters/kit/x402/v1-wire.js';
import { requirementsFor } from '../../src/app/payments/requirements.js';
import { NETWORKS, PRODUCTION, TESTNET, type Network } from '../../src/domain/network.js';
import type { Facilitator, PaymentPayload, PaymentRequirements } from '../../src/ports/facilitator.js';
import { devAccount } from '../support/x402-client.js';

export interface FacilitatorHarness {
  facilitator: Facilitator;
  /** A wallet holding USDC on `network`. */
  funded(network: Network): PrivateKeyAccount;
  payTo: string;
}

export async function sign(account: PrivateKeyAccount, requirements: PaymentRequirements, url = 'http://service.test/tokens'): Promise<PaymentPayload> {
  const client = x402Client.fromConfig({ schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(account) }], spendControls: false });
  return (await client.createPaymentPayload({ x402Version: 2, resource: { url }, accepts: [requirements] } as never)) as PaymentPayload;
}

/** An x402 v1 payment signed by @x402/evm's v1 client for our v1 form of `requirements`, mapped as X-PAYMENT is (decision 0046). */
export async function signV1(account: PrivateKeyAccount, requirements: PaymentRequirements, url = 'http://service.test/tokens'): Promise<PaymentPayload> {
  const v1 = (await new ExactEvmSchemeV1(account).createPaymentPayload(1, toV1Requirements(requirements, { url }) as never)) as unknown as V1PaymentPayload;
  return fromV1Payment(v1, url, 60);
}

export function facilitatorContract(name: string, make: () => Promise<FacilitatorHarness>) {
  describe(`Facilitator contract: ${name}`, () => {
    const req = (h: FacilitatorHarness, network: Network = TESTNET, amount = 10_000n) => requirementsFor(network, amount, h.payTo);

    it('verifies a valid payment and names its payer, then settles it once', async () => {
      const h = await make();
      const wallet = h.funded(TESTNET);
      const r = req(h);
      const payload = await sign(wallet, r);
      expect(await h.facilitator.verify(payload, r)).toMatchObject({ isValid: true, payer: wallet.address });
      const settled = await h.facilitator.settle(payload, r);
      expect(settled).toMatchObject({ success: true, network: TESTNET });
      expect(settled.transaction).toMatch(/^0x[0-9a-f]{64}$/);
      const again = await h.facilitator.settle(payload, r);
      expect(again.success).toBe(false);
      expect((await h.facilitator.verify(payload, r)).isValid).toBe(false);
    });

    it('verifies and settles an x402 v1 payment (its v1 path), answering in CAIP-2, once', async () => {
      const h = await make();
      const wallet = h.funded(TESTNET);
      const r = req(h);
      const payload = await signV1(wallet, r);
      expect(payload.x402Version).toBe(1);
      expect((await h.facilitator.verify(payload, { ...r, amount: '10001' })).isValid).toBe(false);
      expect(await h.facilitator.verify(payload, r)).toMatchObject({ isValid: true, payer: wallet.address });
      const settled = await h.facilitator.settle(payload, r);
      expect(settled).toMatchObject({ success: true, network: TESTNET });
      expect(settled.transaction).toMatch(/^0x[0-9a-f]{64}$/);
      expect((await h.facilitator.verify(payload, r)).isValid).toBe(false);
    });

    it('refuses payments that do not match the requirements', async () => {
      const h = await make();
      const wallet = h.funded(TESTNET);
      const r = req(h);
      const payload = await sign(wallet, r);
      const refused = async (requirements: PaymentRequirements, p: PaymentPayload = payload) => {
        const v = await h.facilitator.verify(p, requirements);
        expect(v.isValid).toBe(false);
        expect(v.invalidReason).toEqual(expect.any(String));
      };
      await refused({ ...r, amount: '10001' });
      await refused({ ...r, payTo: '0x0000000000000000000000000000000000000001' });
      await refused({ ...r, asset: NETWORKS[PRODUCTION].usdc });
      await refused(req(h, PRODUCTION));
      // a tampered value breaks the signature
      const tampered = { ...payload, payload: { ...payload.payload, authorization: { ...(payload.payload as any).authorization, value: '20000' } } };
      await refused({ ...r, amount: '20000' }, { ...tampered, accepted: { ...payload.accepted, amount: '20000' } });
    });

    it('refuses a signature by another key than the payer', async () => {
      const h = await make();
      const wallet = h.funded(TESTNET);
      const r = req(h);
      const mine = await sign(wallet, r);
      const theirs = await sign(privateKeyToAccount(generatePrivateKey()), r);
      const forged = { ...mine, payload: { ...mine.payload, signature: (theirs.payload as any).signature } };
      expect((await h.facilitator.verify(forged, r)).isValid).toBe(false);
    });

    it('refuses an expired and a not-yet-valid authorization', async () => {
      const h = await make();
      const wallet = h.funded(TESTNET);
      const r = req(h);
      const payload = await sign(wallet, r);
      const auth = (payload.payload as any).authorization;
      const expired = { ...payload, payload: { ...payload.payload, authorization: { ...auth, validBefore: '1000' } } };
      const future = { ...payload, payload: { ...payload.payload, authorization: { ...auth, validAfter: String(2 ** 40) } } };
      expect((await h.facilitator.verify(expired, r)).isValid).toBe(false);
      expect((await h.facilitator.verify(future, r)).isValid).toBe(false);
    });

    it('refuses a wallet without the funds', async () => {
      const h = await make();
      const r = req(h);
      const v = await h.facilitator.verify(await sign(privateKeyToAccount(generatePrivateKey()), r), r);
      expect(v.isValid).toBe(false);
      expect(v.invalidReason).toMatch(/insufficient|simulation/);
    });

    it('supports the exact scheme on both networks', async () => {
      const h = await make();
      const kinds = await h.facilitator.supported();
      for (const network of [PRODUCTION, TESTNET]) expect(kinds).toContainEqual(expect.objectContaining({ scheme: 'exact', network }));
    });
  });
}

export const fundedDevAccount = (network: Network) => devAccount(network === PRODUCTION ? 2 : 6);
