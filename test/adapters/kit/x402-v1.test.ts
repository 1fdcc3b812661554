/**
 * The x402 v1 codec (decision 0046), held to the real v1 packages: our v1 `accepts` parse with the
 * legacy `x402` package's schema and its client signs them; the X-PAYMENT it builds decodes into
 * the pipeline's payment; X-PAYMENT-RESPONSE decodes with x402-fetch's own decoder; a facilitator
 * is sent v1's shapes. Bad headers are refused with a reason, never thrown as anything else.
 */
import { describe, expect, it } from 'vitest';
import { decodeXPayment, encodeXPaymentResponse, isV1Payload, v1ChallengeFields } from '../../../src/adapters/http/koa/x402-v1-headers.js';
import { facilitatorRequest, fromV1Network, networkOfV1, v1Accepts } from '../../../src/adapters/kit/x402/v1-wire.js';
import { DEFAULT_SETTINGS } from '../../../src/app/kit/default-settings.js';
import { requirementsFor } from '../../../src/app/payments/requirements.js';
import { PaymentInvalid } from '../../../src/domain/errors.js';
import { ALL_NETWORKS, NETWORKS, PRODUCTION, TESTNET } from '../../../src/domain/network.js';
import { devAccount, devKey } from '../../support/x402-client.js';
import { createPaymentHeader, createSigner, decodeXPaymentResponse, PaymentPayloadSchema, PaymentRequirementsSchema } from '../../v1-clients/index.js';

const URL_ = 'http://service.test/entrypoints/token_buy_usd';
const resource = { url: URL_, description: 'Buy tokens for an exact USD amount.', mimeType: 'application/json' };
const payTo = (n: typeof PRODUCTION | typeof TESTNET) => DEFAULT_SETTINGS.payTo[n];
/** Our 402's PaymentRequired: USDC and EURC on both networks. */
const required = {
  x402Version: 2,
  resource,
  accepts: ALL_NETWORKS.flatMap((n) => [requirementsFor(n, 5_000_000n, payTo(n)), requirementsFor(n, 4_629_630n, payTo(n), 'EURC')]),
};
const KEY = devKey(5);
const wallet = devAccount(5);
const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value), 'utf8').toString('base64');

/** The X-PAYMENT the legacy x402 client builds for our v1 offer on `network`. */
async function xPayment(network: typeof PRODUCTION | typeof TESTNET = TESTNET): Promise<string> {
  const offer = v1Accepts(required).find((r) => r.network === (network === TESTNET ? 'base-sepolia' : 'base'))!;
  const signer = await createSigner(network === TESTNET ? 'base-sepolia' : 'base', KEY);
  return createPaymentHeader(signer, 1, PaymentRequirementsSchema.parse(offer));
}

function refusal(fn: () => unknown): { reason: unknown; message: string } {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(PaymentInvalid);
    return { reason: (e as PaymentInvalid).details?.reason, message: (e as Error).message };
  }
  throw new Error('not refused');
}

describe('v1 accepts', () => {
  it('are our USDC offers, one per network, in v1 form — and parse with the legacy x402 schema', () => {
    const accepts = v1Accepts(required);
    expect(accepts).toEqual(
      ALL_NETWORKS.map((n) => ({
        scheme: 'exact',
        network: n === PRODUCTION ? 'base' : 'base-sepolia',
        maxAmountRequired: '5000000',
        resource: URL_,
        description: resource.description,
        mimeType: 'application/json',
        payTo: payTo(n),
        maxTimeoutSeconds: 60,
        asset: NETWORKS[n].usdc,
        extra: { ...NETWORKS[n].eip712 },
      })),
    );
    for (const a of accepts) expect(PaymentRequirementsSchema.parse(a)).toEqual(a);
  });

  it('ride beside a 402 body whose PaymentRequired names a resource and accepts; nothing otherwise', () => {
    expect(v1ChallengeFields(required)).toEqual({ x402Version: 1, accepts: v1Accepts(required) });
    expect(v1ChallengeFields({ x402Version: 2, accepts: 'none', resource })).toBeUndefined();
    expect(v1ChallengeFields({ x402Version: 2, accepts: [] })).toBeUndefined();
  });

  it('name our networks as v1 does', () => {
    expect(networkOfV1('base')).toBe(PRODUCTION);
    expect(networkOfV1('base-sepolia')).toBe(TESTNET);
    expect(networkOfV1('polygon')).toBeUndefined();
    expect(fromV1Network('base-sepolia')).toBe(TESTNET);
    expect(fromV1Network(TESTNET)).toBe(TESTNET);
  });
});

describe('X-PAYMENT', () => {
  it("decodes the legacy client's payment into the pipeline's payment: the USDC offer as its authorization fills it, bound to the URL it was sent to", async () => {
    const header = await xPayment();
    const v1 = JSON.parse(Buffer.from(header, 'base64').toString('utf8'));
    expect(PaymentPayloadSchema.parse(v1)).toMatchObject({ x402Version: 1, scheme: 'exact', network: 'base-sepolia' });
    const payment = decodeXPayment(header, URL_);
    expect(payment).toEqual({
      x402Version: 1,
      resource: { url: URL_ },
      accepted: {
        scheme: 'exact',
        network: TESTNET,
        asset: NETWORKS[TESTNET].usdc,
        amount: '5000000',
        payTo: v1.payload.authorization.to,
        maxTimeoutSeconds: 60,
        extra: { ...NETWORKS[TESTNET].eip712 },
      },
      payload: v1.payload,
    });
    expect(v1.payload.authorization.from).toBe(wallet.address);
    expect(isV1Payload(v1)).toBe(true);
  });

  it('is sent to a facilitator in v1 shapes, its v1 path; a v2 payment as it is', async () => {
    const payment = decodeXPayment(await xPayment(PRODUCTION), URL_);
    const offer = requirementsFor(PRODUCTION, 5_000_000n, payTo(PRODUCTION));
    const request = facilitatorRequest(payment, offer);
    expect(request).toEqual({
      x402Version: 1,
      paymentPayload: { x402Version: 1, scheme: 'exact', network: 'base', payload: payment.payload },
      paymentRequirements: { ...v1Accepts({ resource: { url: URL_ }, accepts: [offer] })[0], description: '' },
    });
    const v2 = { ...payment, x402Version: 2 };
    expect(facilitatorRequest(v2, offer)).toEqual({ x402Version: 2, paymentPayload: v2, paymentRequirements: offer });
  });

  it.each([
    ['not base64', '%%%not base64%%%', 'invalid_x_payment_header'],
    ['base64 of no JSON', b64('{"x402Version":1,'), 'invalid_x_payment_header'],
    ['a JSON array', b64([1, 2]), 'invalid_x_payment_header'],
    ['a payload that is no object', b64({ x402Version: 1, scheme: 'exact', network: 'base-sepolia', payload: 'sig' }), 'invalid_x_payment_header'],
    ['an x402 v2 payload', b64({ x402Version: 2, accepted: {}, payload: {} }), 'unsupported_payment'],
    ['version 3', b64({ x402Version: 3, scheme: 'exact', network: 'base-sepolia', payload: {} }), 'unsupported_payment'],
    ['another scheme', b64({ x402Version: 1, scheme: 'upto', network: 'base-sepolia', payload: {} }), 'unsupported_payment'],
    ['another network', b64({ x402Version: 1, scheme: 'exact', network: 'polygon', payload: {} }), 'unsupported_payment'],
    ['a CAIP-2 network', b64({ x402Version: 1, scheme: 'exact', network: TESTNET, payload: {} }), 'unsupported_payment'],
  ])('refuses %s with its reason', (_name, header, reason) => {
    expect(refusal(() => decodeXPayment(header, URL_)).reason).toBe(reason);
  });
});

describe('X-PAYMENT-RESPONSE', () => {
  it("is v1's settlement response, which x402-fetch's decoder reads: success, transaction, v1's network, payer", () => {
    const transaction = `0x${'ab'.repeat(32)}`;
    const header = encodeXPaymentResponse({ success: true, transaction, network: TESTNET, payer: wallet.address, extensions: { 'offer-receipt': {} } });
    expect(decodeXPaymentResponse(header)).toEqual({ success: true, transaction, network: 'base-sepolia', payer: wallet.address });
  });
});
