/**
 * Discovery metadata is the Bazaar extension's own: every paid route's declaration validates with
 * the extension's validators, its examples are real requests and answers of our schemas, and it
 * equals what the official Express middleware (x402ResourceServer + bazaarResourceServerExtension)
 * puts in its 402 for the same declaration.
 */
import type { AddressInfo } from 'node:net';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import { ExactEvmScheme } from '@x402/evm/exact/server';
import { paymentMiddleware, x402ResourceServer } from '@x402/express';
import {
  bazaarResourceServerExtension,
  declareDiscoveryExtension,
  validateDiscoveryExtension,
  validateDiscoveryExtensionSpec,
} from '@x402/extensions/bazaar';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { bazaarExtension, canonicalPath, discoveryDocument, discoveryPrice } from '../../../src/adapters/http/koa/discovery.js';
import { DEFAULT_SETTINGS } from '../../../src/app/kit/default-settings.js';
import { entrypoints } from '../../../src/app/catalogue.js';
import { batchRequirementsFor, requirementsFor } from '../../../src/app/payments/requirements.js';
import { parseUsd } from '../../../src/domain/money.js';
import { ALL_NETWORKS, TESTNET } from '../../../src/domain/network.js';

/** Each paid entrypoint's worked example, written beside its entry in its room. */
const ENTRYPOINT_EXAMPLES = Object.fromEntries(entrypoints().map((e) => [e.name, e.example]));

const ALL = entrypoints();
type Bazaar = { info: { input: Record<string, unknown>; output: { example: unknown } }; schema: any };

describe('Bazaar metadata of every paid route', () => {
  it('each entrypoint has an example whose input it accepts and whose output its schema describes exactly', () => {
    expect(Object.keys(ENTRYPOINT_EXAMPLES).sort()).toEqual(ALL.map((e) => e.name).sort());
    for (const ep of ALL) {
      const example = ENTRYPOINT_EXAMPLES[ep.name]!;
      expect(() => ep.parse(example.input), ep.name).not.toThrow();
      // strict: an example may not carry a field the schema does not name
      expect((ep.outputSchema as z.ZodObject).strict().safeParse(example.output).success, ep.name).toBe(true);
    }
  });

  it('each example whose price its input sets names that price (its 402 asks it, decision 0075): what the buy spent', () => {
    for (const ep of ALL.filter((e) => e.priceRule.kind === 'computed')) {
      expect(ep.example.priceUsd, ep.name).toBe((ep.example.output as { usdSpent?: string }).usdSpent);
    }
  });

  it('validates with the extension’s schema validator and its protocol-level validator', () => {
    for (const ep of ALL) {
      const ext = bazaarExtension(ep) as Bazaar;
      expect(validateDiscoveryExtension(ext as never), ep.name).toEqual({ valid: true });
      expect(validateDiscoveryExtensionSpec(ext), ep.name).toEqual({ valid: true });
      expect(ext.info.input).toMatchObject({ type: 'http', method: 'POST', bodyType: 'json', body: ENTRYPOINT_EXAMPLES[ep.name]!.input });
      // The input and output JSON Schemas are the ones the server validates with (and /entrypoints shows).
      const { $schema: _i, ...input } = z.toJSONSchema(ep.inputSchema, { io: 'input', unrepresentable: 'any' });
      const { $schema: _o, ...output } = z.toJSONSchema(ep.outputSchema, { unrepresentable: 'any' });
      expect(ext.schema.properties.input.properties.body).toEqual(input);
      expect(ext.schema.properties.output.properties.example).toEqual({ type: 'object', ...output });
    }
  });

  it('a wrong example is caught by the extension’s validator (the check can fail)', () => {
    const ext = bazaarExtension(ALL.find((e) => e.name === 'token_sell')!) as Bazaar;
    const broken = { ...ext, info: { ...ext.info, input: { ...ext.info.input, body: { tokenId: 'tok_x', tokens: 5 } } } };
    expect(validateDiscoveryExtension(broken as never).valid).toBe(false);
  });

  it('equals what the official Express middleware declares in its 402 for the same route', async () => {
    const ep = ALL.find((e) => e.name === 'token_info')!;
    const ours = bazaarExtension(ep) as Bazaar;
    const server = new x402ResourceServer({
      verify: async () => ({ isValid: false }),
      settle: async () => ({ success: false, transaction: '', network: TESTNET }),
      getSupported: async () => ({ kinds: ALL_NETWORKS.map((network) => ({ x402Version: 2, scheme: 'exact', network })), extensions: [], signers: {} }),
    } as never);
    for (const n of ALL_NETWORKS) server.register(n, new ExactEvmScheme());
    server.registerExtension(bazaarResourceServerExtension);
    const declared = declareDiscoveryExtension({
      bodyType: 'json',
      input: ours.info.input.body as Record<string, unknown>,
      inputSchema: ours.schema.properties.input.properties.body,
      output: { example: ours.info.output.example, schema: ours.schema.properties.output.properties.example },
    });
    const app = express();
    app.use(
      paymentMiddleware(
        {
          [`POST ${canonicalPath(ep)}`]: {
            accepts: { scheme: 'exact', network: TESTNET, payTo: DEFAULT_SETTINGS.payTo[TESTNET], price: '$0.001' },
            extensions: declared,
          },
        },
        server,
      ),
    );
    const listener = app.listen(0, '127.0.0.1');
    await new Promise((r) => listener.once('listening', r));
    try {
      const { port } = listener.address() as AddressInfo;
      const res = await fetch(`http://127.0.0.1:${port}${canonicalPath(ep)}`, { method: 'POST' });
      expect(res.status).toBe(402);
      const theirs = decodePaymentRequiredHeader(res.headers.get('payment-required')!);
      expect(theirs.extensions?.bazaar).toEqual(ours);
    } finally {
      await new Promise((r) => listener.close(r));
    }
  });
});

describe('the /.well-known/x402 document', () => {
  const origin = 'https://launchpad.example.com';
  const doc = discoveryDocument(ALL, DEFAULT_SETTINGS, origin);

  it('is the document x402scan fetches: version 1 and the absolute URLs of every paid resource', () => {
    // x402scan's own check of the document (docs/DISCOVERY.md): extra fields are allowed.
    const x402scan = z.object({
      version: z.literal(1),
      resources: z.array(z.url()),
      ownershipProofs: z.array(z.string()).optional(),
      instructions: z.string().optional(),
    });
    expect(x402scan.safeParse(doc).success).toBe(true);
    expect(doc.resources).toEqual(ALL.map((e) => `${origin}/entrypoints/${e.name}`));
    expect(doc.instructions).toContain('POST /entrypoints/token_info — $0.001.');
  });

  it('lists each resource with its price, its requirements when fixed, and its valid Bazaar metadata', () => {
    expect(doc.items.map((i) => i.resource)).toEqual(doc.resources);
    for (const ep of ALL) {
      const item = doc.items.find((i) => i.resource.endsWith(`/${ep.name}`))!;
      expect(item).toMatchObject({ type: 'http', x402Version: 2, method: 'POST', description: ep.description });
      expect(validateDiscoveryExtension(item.extensions.bazaar as never)).toEqual({ valid: true });
      const price = discoveryPrice(ep, DEFAULT_SETTINGS);
      expect(item.price).toEqual(price);
      if (price.mode === 'fixed') {
        const amount = parseUsd(price.amount);
        // By exact, then the same by batch-settlement (docs/api.md "Pay once, call many").
        const exact = ALL_NETWORKS.map((n) => requirementsFor(n, amount, DEFAULT_SETTINGS.payTo[n]));
        const batch = DEFAULT_SETTINGS.batchSettlement!;
        expect(item.accepts).toEqual([...exact, ...exact.map((r) => batchRequirementsFor(r, batch))]);
      } else {
        expect(item.accepts).toEqual([]);
        expect(price).toMatchObject({ min: '0.01', max: '10000' });
      }
    }
    const fixed = Object.fromEntries(doc.items.map((i) => [i.resource.split('/').pop(), i.price.mode]));
    // Every entrypoint (test/app/catalogue.test.ts lists them and their price rules): a fixed price is fixed, a computed one dynamic.
    expect(fixed).toEqual(Object.fromEntries(ALL.map((e) => [e.name, e.priceRule.kind === 'fixed' ? 'fixed' : 'dynamic'])));
  });
});
