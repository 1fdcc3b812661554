/**
 * Discovery over HTTP: every 402 of a paid route declares its Bazaar metadata in its body (the
 * header carries the same object without it, decision 0034), a Bazaar facilitator extracts it
 * from the payment the service forwards for verification, and GET /.well-known/x402 and
 * /entrypoints point agents at all of it.
 */
import { x402Client } from '@x402/core/client';
import { ExactEvmScheme } from '@x402/evm';
import { extractDiscoveryInfo, validateDiscoveryExtension } from '@x402/extensions/bazaar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/bootstrap/compose.js';
import { bazaarExtension } from '../../src/adapters/http/koa/discovery.js';
import { decodeBase64Json, devAccount, payingFetch } from '../support/x402-client.js';
import { json, startTestService } from '../support/service.js';
import { FakeFacilitator } from '../../src/adapters/facilitator/fake/fake-facilitator.js';
import { paymentRequiredOf } from '../../src/adapters/kit/mcp/x402-mcp.js';
import { call, connectMcp } from '../support/mcp-client.js';
import type { PaymentPayload, PaymentRequirements } from '../../src/ports/facilitator.js';

const wallet = devAccount(5);
let service: RunningService;
let tokenId: string;
/** Every payment the facilitator was asked to verify, as the service forwarded it. */
const verified: PaymentPayload[] = [];

/** PAYMENT-REQUIRED as the header carries a 402's object: without Bazaar, the offers and the resource's description. */
/** The header's view of a 402's object: without what only the body carries — Bazaar, the signed offers, the extensions' JSON Schemas, the resource's description. */
function headerView(required: any): any {
  const { bazaar: _b, 'offer-receipt': _o, ...kept } = required.extensions;
  const extensions = Object.fromEntries(Object.entries(kept).map(([k, { schema: _s, ...v }]: [string, any]) => [k, v]));
  const { description: _d, ...resource } = required.resource;
  return { ...required, resource, extensions };
}

beforeAll(async () => {
  const facilitator = new (class extends FakeFacilitator {
    override verify(payload: PaymentPayload, requirements: PaymentRequirements) {
      verified.push(payload);
      return super.verify(payload, requirements);
    }
  })({ clock: { now: () => new Date() }, defaultBalance: 10_000_000_000n });
  service = await startTestService({ ports: { facilitator } });
  const res = await post('/tokens', { name: 'Discovery', symbol: 'DISC' }, {}, payingFetch(wallet));
  tokenId = (await json(res)).data.tokenId;
});
afterAll(async () => {
  await service.stop();
});

function post(path: string, body: unknown, headers: Record<string, string> = {}, f: typeof fetch = fetch) {
  return f(`${service.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address, ...headers },
    body: JSON.stringify(body),
  });
}

describe('Bazaar metadata in every 402', () => {
  it('each paid route declares its own in the envelope; PAYMENT-REQUIRED carries the same object without it', async () => {
    const bodies: Record<string, unknown> = {
      token_create: { name: 'Second', symbol: 'TWO' },
      token_buy_usd: { tokenId, usdAmount: '1' },
      token_buy_tokens: { tokenId, tokens: '1000000' },
      token_info: { tokenId },
    };
    for (const [name, body] of Object.entries(bodies)) {
      const res = await post(`/entrypoints/${name}`, body);
      expect(res.status, name).toBe(402);
      const header = decodeBase64Json<any>(res.headers.get('payment-required'));
      const envelope = await json(res);
      expect(headerView(envelope.error.details)).toEqual(header);
      expect(header.extensions.bazaar).toBeUndefined();
      expect(envelope.error.details.extensions.bazaar).toEqual(bazaarExtension(service.application.entrypoints.get(name)!));
      expect(validateDiscoveryExtension(envelope.error.details.extensions.bazaar)).toEqual({ valid: true });
    }
  });

  it('a refused payment’s 402 (details.paymentRequired) declares it too', async () => {
    const res = await post('/entrypoints/token_info', { tokenId }, { 'payment-signature': 'bm90IGpzb24=' });
    expect(res.status).toBe(402);
    const envelope = await json(res);
    expect(envelope.error.code).toBe('PAYMENT_INVALID');
    expect(envelope.error.details.paymentRequired.extensions.bazaar.info.input.method).toBe('POST');
    expect(decodeBase64Json<any>(res.headers.get('payment-required'))).toEqual(headerView(envelope.error.details.paymentRequired));
  });

  it('a Bazaar facilitator lists the route from the payment the service forwards, though the client echoed no schema', async () => {
    const res = await post('/entrypoints/token_info', { tokenId });
    const required = decodeBase64Json<any>(res.headers.get('payment-required'));
    const client = x402Client.fromConfig({ schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(wallet) }], spendControls: false });
    expect((await client.createPaymentPayload(required)).extensions?.bazaar).toBeUndefined();
    verified.length = 0;
    const paid = await post('/entrypoints/token_info', { tokenId }, {}, payingFetch(wallet));
    expect(paid.status).toBe(200);
    const payload = verified[0]! as any;
    const discovered = extractDiscoveryInfo(payload, payload.accepted);
    expect(discovered).toMatchObject({
      resourceUrl: `${service.url}/entrypoints/token_info`,
      method: 'POST',
      x402Version: 2,
      discoveryInfo: { input: { type: 'http', method: 'POST', bodyType: 'json', body: { tokenId: expect.any(String) } } },
    });
  });
});

describe('GET /.well-known/x402 and the manifest’s link to it', () => {
  it('serves the discovery document with this server’s absolute URLs', async () => {
    const res = await fetch(`${service.url}/.well-known/x402`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    const doc = await json(res);
    expect(doc.version).toBe(1);
    expect(doc.resources).toContain(`${service.url}/entrypoints/token_create`);
    expect(doc.resources).toHaveLength(service.application.entrypoints.size);
    expect(doc.items[0].extensions.bazaar.info.input.method).toBe('POST');
  });

  it('names PUBLIC_URL instead when one is configured', async () => {
    const behindProxy = await startTestService({}, { PUBLIC_URL: 'https://launchpad.example.com' });
    try {
      const doc = await json(await fetch(`${behindProxy.url}/.well-known/x402`));
      expect(doc.resources[0]).toBe('https://launchpad.example.com/entrypoints/token_create');
    } finally {
      await behindProxy.stop();
    }
  });

  it('the OpenAPI document names it and carries each paid operation’s x402 payment info', async () => {
    const doc = await json(await fetch(`${service.url}/api/openapi.json`));
    expect(doc.paths['/.well-known/x402'].get.operationId).toBe('x402_discovery');
    expect(doc.paths['/entrypoints/token_info'].post['x-payment-info']).toEqual({
      protocols: [{ x402: {} }],
      price: { mode: 'fixed', currency: 'USD', amount: '0.001' },
    });
    expect(doc.paths['/entrypoints/token_buy_usd'].post['x-payment-info'].price).toMatchObject({ mode: 'dynamic', min: '0.01', max: '10000' });
  });

  it('/entrypoints links it (Link header and each entry)', async () => {
    const res = await fetch(`${service.url}/entrypoints`);
    expect(res.headers.get('link')).toBe('</.well-known/x402>; rel="describedby"; type="application/json"');
    const { data } = await json(res);
    for (const entry of data) expect(entry.discovery).toBe('/.well-known/x402');
  });
});

describe("a crawler POSTing each resource's Bazaar example (decision 0075)", () => {
  it('gets its 402 at the example’s price, every resource, though the example’s token, quote and signatures exist nowhere', async () => {
    const doc = await json(await fetch(`${service.url}/.well-known/x402`));
    const http = doc.items.filter((i: { type: string }) => i.type === 'http');
    expect(http).toHaveLength(service.application.entrypoints.size);
    for (const item of http) {
      const body = item.extensions.bazaar.info.input.body;
      const res = await fetch(item.resource, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(res.status, `${item.resource}: ${JSON.stringify(await res.clone().json())}`).toBe(402);
      const required = decodeBase64Json<any>(res.headers.get('payment-required'));
      const name = item.resource.split('/').at(-1);
      const example = service.application.entrypoints.get(name)!.example;
      const price = item.price.mode === 'fixed' ? item.price.amount : example.priceUsd;
      // USDC offers carry the USD price in micro-units on both networks.
      const usdc = required.accepts.filter((a: { scheme: string; extra?: { name?: string } }) => a.scheme === 'exact' && (a.extra?.name === 'USDC' || a.extra?.name === 'USD Coin'));
      expect(usdc.map((a: { network: string }) => a.network).sort(), name).toEqual(['eip155:8453', 'eip155:84532']);
      for (const a of usdc) expect(a.amount, name).toBe(String(Math.round(Number(price) * 1e6)));
    }
  });

  it('paying the example is refused like any payment for a token that does not exist: nothing charged', async () => {
    const example = service.application.entrypoints.get('token_info')!.example;
    const res = await post('/entrypoints/token_info', example.input, {}, payingFetch(wallet));
    expect(res.status).toBe(404);
    expect((await json(res)).error.code).toBe('TOKEN_NOT_FOUND');
  });

  it('any other body for the example’s token is still refused before any price', async () => {
    const example = service.application.entrypoints.get('token_buy_usd')!.example;
    const res = await post('/entrypoints/token_buy_usd', { ...example.input, usdAmount: '6' });
    expect([res.status, (await json(res)).error.code]).toEqual([404, 'TOKEN_NOT_FOUND']);
  });
});

describe("an MCP client calling each paid tool with its Bazaar example (decision 0075)", () => {
  it('gets the tool’s 402 result, every paid tool', async () => {
    const doc = await json(await fetch(`${service.url}/.well-known/x402`));
    const tools = doc.items.filter((i: { type: string }) => i.type === 'mcp');
    expect(tools.length).toBe(service.application.entrypoints.size);
    const agent = await connectMcp(`${service.url}/mcp`);
    try {
      for (const item of tools) {
        const args = item.extensions.bazaar.info.input.example;
        const result = await call(agent, item.toolName, args);
        expect(paymentRequiredOf(result), `${item.toolName}: ${JSON.stringify(result.content)}`).toMatchObject({ x402Version: 2, accepts: expect.any(Array) });
      }
    } finally {
      await agent.close();
    }
  });
});
