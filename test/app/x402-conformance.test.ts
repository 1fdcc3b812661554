/**
 * Our 402 is the official one: requirements, and the PaymentRequired object of the payment flow's
 * challenge, equal what @x402/core's x402ResourceServer (with @x402/evm's exact, batch-settlement
 * and upto server schemes) builds for the same prices, and the official server matches a payment
 * to them as our flow does.
 */
import { x402ResourceServer } from '@x402/core/server';
import { BatchSettlementEvmScheme } from '@x402/evm/batch-settlement/server';
import { ExactEvmScheme } from '@x402/evm/exact/server';
import { UptoEvmScheme } from '@x402/evm/upto/server';
import { describe, expect, it } from 'vitest';
import { matchRequirements, requirementsFor } from '../../src/app/payments/requirements.js';
import { readAuthorization } from '../../src/app/payments/exact-authorization.js';
import { DEFAULT_SETTINGS } from '../../src/app/kit/default-settings.js';
import { ALL_NETWORKS, NETWORKS, PAYMENT_ASSETS, PRODUCTION, TESTNET } from '../../src/domain/network.js';
import { ScriptedQuoteProvider } from '../support/scripted-quote-provider.js';
import { devAccount, payingFetch } from '../support/x402-client.js';
import { ShiftableClock, startTestService } from '../support/service.js';

async function official() {
  const server = new x402ResourceServer({
    verify: async () => ({ isValid: false }),
    settle: async () => ({ success: false, transaction: '', network: TESTNET }),
    getSupported: async () => ({
      kinds: ALL_NETWORKS.flatMap((network) => [
        { x402Version: 2, scheme: 'exact', network },
        { x402Version: 2, scheme: 'batch-settlement', network, extra: { receiverAuthorizer: DEFAULT_SETTINGS.batchSettlement!.receiverAuthorizer[network] } },
        { x402Version: 2, scheme: 'upto', network, extra: { facilitatorAddress: DEFAULT_SETTINGS.upto!.facilitatorAddress[network] } },
      ]),
      extensions: [],
      signers: {},
    }),
  } as never);
  for (const n of ALL_NETWORKS) server.register(n, new ExactEvmScheme());
  for (const n of ALL_NETWORKS) server.register(n, new BatchSettlementEvmScheme(DEFAULT_SETTINGS.payTo[n] as `0x${string}`, { withdrawDelay: 900 }));
  for (const n of ALL_NETWORKS) server.register(n, new UptoEvmScheme());
  await server.initialize();
  return server;
}

describe('x402 conformance', () => {
  it('requirements equal x402ResourceServer.buildPaymentRequirements for both networks', async () => {
    const server = await official();
    for (const network of [PRODUCTION, TESTNET] as const) {
      for (const amount of [10_000n, 1_000n, 5_662_888n]) {
        const built = await server.buildPaymentRequirements({
          scheme: 'exact',
          payTo: DEFAULT_SETTINGS.payTo[network],
          price: { asset: NETWORKS[network].usdc, amount: amount.toString(), extra: { ...NETWORKS[network].eip712 } },
          network,
          maxTimeoutSeconds: 60,
        });
        expect(built).toEqual([requirementsFor(network, amount, DEFAULT_SETTINGS.payTo[network])]);
      }
    }
    // A plain USD price resolves to the same USDC and domain.
    const dollars = await server.buildPaymentRequirements({ scheme: 'exact', payTo: DEFAULT_SETTINGS.payTo[PRODUCTION], price: '$0.01', network: PRODUCTION, maxTimeoutSeconds: 60 });
    expect(dollars).toEqual([requirementsFor(PRODUCTION, 10_000n, DEFAULT_SETTINGS.payTo[PRODUCTION])]);
  });

  it('the flow’s 402 equals createPaymentRequiredResponse over the official requirements for the same prices', async () => {
    const server = await official();
    const clock = new ShiftableClock();
    const service = await startTestService({ ports: { clock, usdQuotes: new ScriptedQuoteProvider('scripted', clock, (asset) => ({ price: asset === 'EURC' ? '1.08' : '1' })) } });
    try {
      const entrypoint = service.application.entrypoints.get('token_create')!;
      const resource = { url: 'http://127.0.0.1:3000/tokens', description: entrypoint.description, mimeType: 'application/json' };
      const outcome = await service.application.flow.handle({ entrypoint, rawInput: { name: 'Moon Cat', symbol: 'MCAT' }, resource });
      // $0.01: 10000 USDC units, and EURC at 1.08 rounded up to a unit.
      const amounts = { USDC: 10_000n, EURC: (10_000n * 100n + 107n) / 108n };
      // Every exact offer, then the same prices by batch-settlement — in USDC for a 402 of both
      // networks, and without the scheme's defaults the official server writes out (withdrawDelay
      // 900): the header's size (docs/api.md "Pay once, call many").
      const built = [];
      for (const scheme of ['exact', 'batch-settlement']) {
        for (const network of ALL_NETWORKS) {
          for (const asset of scheme === 'exact' ? PAYMENT_ASSETS : (['USDC'] as const)) {
            const { address, eip712 } = NETWORKS[network].assets[asset];
            const price = { asset: address, amount: amounts[asset].toString(), extra: { ...eip712 } };
            const payTo = service.application.deps.settings.payTo[network];
            for (const r of await server.buildPaymentRequirements({ scheme, payTo, price, network, maxTimeoutSeconds: 60 })) {
              const { withdrawDelay, ...extra } = r.extra as Record<string, unknown>;
              if (scheme === 'batch-settlement') expect(withdrawDelay).toBe(900);
              built.push(scheme === 'exact' ? r : { ...r, extra });
            }
          }
        }
      }
      expect(outcome).toEqual({ kind: 'challenge', paymentRequired: await server.createPaymentRequiredResponse(built, resource) });
    } finally {
      await service.stop();
    }
  });

  it('token_buy_tokens’ 402 adds the upto offers the official upto server builds for its maximum: the price plus the default slippage', async () => {
    const server = await official();
    const clock = new ShiftableClock();
    const service = await startTestService({ ports: { clock, usdQuotes: new ScriptedQuoteProvider('scripted', clock, (asset) => ({ price: asset === 'EURC' ? '1.08' : '1' })) } });
    try {
      const wallet = devAccount(6);
      const created = await payingFetch(wallet)(`${service.url}/tokens`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address },
        body: JSON.stringify({ name: 'Up To', symbol: 'UPTO' }),
      });
      const { tokenId, network } = ((await created.json()) as { data: { tokenId: string; network: typeof TESTNET } }).data;
      const entrypoint = service.application.entrypoints.get('token_buy_tokens')!;
      const resource = { url: 'http://127.0.0.1:3000/entrypoints/token_buy_tokens', description: entrypoint.description, mimeType: 'application/json' };
      const outcome = await service.application.flow.handle({ entrypoint, rawInput: { tokenId, tokens: '1000000' }, resource });
      if (outcome.kind !== 'challenge') throw new Error(`expected a challenge, got ${outcome.kind}`);
      // The price as the flow set it; the rest follows: EURC at 1.08 rounded up, the maximum 1 % over the price.
      const price = BigInt(outcome.paymentRequired.accepts[0]!.amount);
      const maximum = price + (price * DEFAULT_SETTINGS.defaultSlippageBps) / 10_000n;
      const inEurc = (usd: bigint) => (usd * 100n + 107n) / 108n;
      const amounts = { exact: { USDC: price, EURC: inEurc(price) }, upto: { USDC: maximum, EURC: inEurc(maximum) } };
      const built = [];
      for (const scheme of ['exact', 'batch-settlement', 'upto'] as const) {
        for (const asset of PAYMENT_ASSETS) {
          const { address, eip712 } = NETWORKS[network as typeof TESTNET].assets[asset];
          const amount = amounts[scheme === 'upto' ? 'upto' : 'exact'][asset];
          const payTo = service.application.deps.settings.payTo[network as typeof TESTNET];
          for (const r of await server.buildPaymentRequirements({ scheme, payTo, price: { asset: address, amount: amount.toString(), extra: { ...eip712 } }, network, maxTimeoutSeconds: 60 })) {
            // batch-settlement without the default the official server writes out (as for token_create, above).
            const { withdrawDelay: _default, ...extra } = r.extra as Record<string, unknown>;
            built.push(scheme === 'batch-settlement' ? { ...r, extra } : r);
          }
        }
      }
      expect(outcome).toEqual({ kind: 'challenge', paymentRequired: await server.createPaymentRequiredResponse(built, resource) });
    } finally {
      await service.stop();
    }
  });

  it('matches a payment to the requirements as x402ResourceServer.findMatchingRequirements does', async () => {
    const server = await official();
    const accepts = ALL_NETWORKS.map((n) => requirementsFor(n, 10_000n, DEFAULT_SETTINGS.payTo[n]));
    const variants = [
      accepts[1]!,
      { ...accepts[1]!, amount: '9999' },
      { ...accepts[1]!, network: 'eip155:1' },
      { ...accepts[0]!, payTo: '0x0000000000000000000000000000000000000001' },
      { ...accepts[0]!, asset: NETWORKS[TESTNET].usdc },
      { ...accepts[0]!, scheme: 'upto' },
    ];
    for (const accepted of variants) {
      const official = server.findMatchingRequirements(accepts as never, { x402Version: 2, accepted, payload: {} } as never);
      expect(matchRequirements(accepts, accepted)).toEqual(official);
    }
  });
});

describe('reading the exact scheme’s authorization', () => {
  const base = {
    signature: `0x${'1'.repeat(130)}`,
    authorization: { from: `0x${'a'.repeat(40)}`, to: `0x${'b'.repeat(40)}`, value: '10000', validAfter: '0', validBefore: '99999999999', nonce: `0x${'c'.repeat(64)}` },
  };
  const read = (over: Record<string, string>) => readAuthorization({ ...base, authorization: { ...base.authorization, ...over } });

  it('takes every uint256 up to 2^256 − 1 and refuses a larger number as no authorization at all', () => {
    expect(read({ validBefore: (2n ** 256n - 1n).toString() }).validBefore).toBe(2n ** 256n - 1n);
    for (const field of ['value', 'validAfter', 'validBefore']) {
      expect(() => read({ [field]: (2n ** 256n).toString() })).toThrow(
        expect.objectContaining({ code: 'PAYMENT_INVALID', details: { reason: 'invalid_payload', field: `payload.authorization.${field}` } }),
      );
    }
  });

  it('refuses a number that is no decimal uint — "1e6", "abc", "1.5", "-1", "0x3e8", " 1000", "" — as invalid_payload naming the field, never a crash', () => {
    for (const field of ['value', 'validAfter', 'validBefore']) {
      for (const bad of ['1e6', 'abc', '1.5', '-1', '0x3e8', ' 1000', '', '１２', '9'.repeat(79)]) {
        expect(() => read({ [field]: bad })).toThrow(
          expect.objectContaining({ code: 'PAYMENT_INVALID', details: { reason: 'invalid_payload', field: `payload.authorization.${field}` } }),
        );
      }
    }
  });
});
