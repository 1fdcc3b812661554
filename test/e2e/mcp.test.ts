/**
 * MCP on the service over fakes (no chain): what the devnet file does not reach — the FAILED rule
 * (a settlement that does not confirm answers a non-error result naming the payment, and the
 * reconciler finishes it), payment identifiers and receipts, the wallet's network, the JSON-RPC
 * edges of the endpoint — and the discovery documents agents read first.
 */
import type { Client } from '@modelcontextprotocol/client';
import type { PaymentPayload } from '@x402/core/types';
import { validateDiscoveryExtension } from '@x402/extensions/bazaar';
import { verifyReceiptSignatureEIP712, type EIP712SignedReceipt } from '@x402/extensions/offer-receipt';
import { appendPaymentIdentifierToExtensions, generatePaymentId } from '@x402/extensions/payment-identifier';
import { getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeFacilitator } from '../../src/adapters/facilitator/fake/fake-facilitator.js';
import { PAYMENT_META, PAYMENT_RESPONSE_META, WALLET_META } from '../../src/adapters/kit/mcp/x402-mcp.js';
import type { RunningService } from '../../src/bootstrap/compose.js';
import { PRODUCTION, TESTNET } from '../../src/domain/network.js';
import { call, callPaid, connectMcp, envelopeOf, MODERN_PROTOCOL_VERSION, payerFor } from '../support/mcp-client.js';
import { json, PRODUCTION_WALLETS, settle, ShiftableClock, startTestService } from '../support/service.js';
import { devAccount } from '../support/x402-client.js';

const TREASURY = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const clock = new ShiftableClock();
const facilitator = new FakeFacilitator({ clock, defaultBalance: 10_000_000_000n });
const wallet = devAccount(5); // testnet
let service: RunningService;
let agent: Client;
let tokenId: string;

beforeAll(async () => {
  service = await startTestService({ ports: { clock, facilitator } });
  agent = await connectMcp(`${service.url}/mcp`);
  tokenId = ((await callPaid(agent, 'create_token', { name: 'Fake Cat', symbol: 'FCAT' }, wallet)).result.structuredContent as { tokenId: string }).tokenId;
});
afterAll(async () => {
  await agent?.close();
  await service?.stop();
});

const balance = () => facilitator.balanceOf(TESTNET, wallet.address);

describe('payments over MCP are the same payments', () => {
  it('a settlement that does not confirm answers a non-error result naming the payment; the reconciler finishes it and the payload then answers the trade', async () => {
    facilitator.timeoutNextSettle(); // the transfer happens, the answer is lost
    const before = balance();
    const { payload, result } = await callPaid(agent, 'token_buy_usd', { tokenId, usdAmount: '1.25' }, wallet);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ status: 'pending', paymentId: expect.stringMatching(/^pay_/), state: 'SETTLING' });
    const paymentId = (result.structuredContent as { paymentId: string }).paymentId;
    expect((result.content[1] as { text: string }).text).toContain(`get_payment with paymentId "${paymentId}"`);
    expect(before - balance()).toBe(1_250_000n);
    clock.offsetMs += 60_000; // past the reconciler's grace
    try {
      await service.reconciler.runOnce();
    } finally {
      clock.offsetMs -= 60_000;
    }
    expect((await call(agent, 'get_payment', { paymentId })).structuredContent).toMatchObject({ paymentId, state: 'APPLIED', resource: 'token_buy_usd' });
    const late = await call(agent, 'token_buy_usd', { tokenId, usdAmount: '1.25' }, { [PAYMENT_META]: payload });
    expect(late.structuredContent).toMatchObject({ usdSpent: '1.25', payment: { paymentId } });
    expect(before - balance()).toBe(1_250_000n);
  });

  it('a payment identifier makes the retried operation one charge; the receipt is signed for the tool', async () => {
    const id = generatePaymentId();
    const args = { tokenId, usdAmount: '2' };
    const pay = payerFor(wallet);
    const withId = async () => {
      const challenge = await call(agent, 'token_buy_usd', args, { [WALLET_META]: wallet.address });
      const required = challenge.structuredContent as { extensions: Record<string, unknown> };
      expect(required.extensions['payment-identifier']).toMatchObject({ info: { required: false } });
      appendPaymentIdentifierToExtensions(required.extensions, id);
      return pay(required as never);
    };
    const before = balance();
    const first = await call(agent, 'token_buy_usd', args, { [PAYMENT_META]: await withId() });
    const again = await call(agent, 'token_buy_usd', args, { [PAYMENT_META]: await withId() }); // a new authorization, the same id
    expect(again.structuredContent).toEqual(first.structuredContent);
    expect(before - balance()).toBe(2_000_000n);
    const settlement = first._meta?.[PAYMENT_RESPONSE_META] as { extensions?: Record<string, unknown> };
    expect(settlement.extensions?.['offer-receipt']).toBeDefined();
    const paymentId = (first.structuredContent as { payment: { paymentId: string } }).payment.paymentId;
    const view = (await call(agent, 'get_payment', { paymentId })).structuredContent as { paymentIdentifier: string; receipt: EIP712SignedReceipt };
    expect(view.paymentIdentifier).toBe(id);
    const { signer, payload } = await verifyReceiptSignatureEIP712(view.receipt);
    expect(getAddress(signer)).toBe(TREASURY);
    expect(payload).toMatchObject({ network: TESTNET, resourceUrl: 'mcp://tool/token_buy_usd' });
  });

  it('the network follows the wallet: without a name both networks are offered; a payment on the other one is NETWORK_MISMATCH offering only its own', async () => {
    const producer = devAccount(1); // has "mainnet" history
    expect(PRODUCTION_WALLETS).toContain(producer.address);
    const unnamed = await call(agent, 'token_info', { tokenId });
    const networks = (unnamed.structuredContent as { accepts: { network: string }[] }).accepts.map((a) => a.network);
    expect([...new Set(networks)]).toEqual([PRODUCTION, TESTNET]);
    const testnetOnly = { ...(unnamed.structuredContent as object), accepts: (unnamed.structuredContent as { accepts: { network: string }[] }).accepts.filter((a) => a.network === TESTNET) };
    const wrong = await call(agent, 'token_info', { tokenId }, { [PAYMENT_META]: await payerFor(producer)(testnetOnly as never) });
    expect(wrong.isError).toBe(true);
    expect(envelopeOf(wrong).error).toMatchObject({ code: 'NETWORK_MISMATCH', details: { expected: PRODUCTION, received: TESTNET } });
    expect((wrong.structuredContent as { accepts: { network: string }[] }).accepts.every((a) => a.network === PRODUCTION)).toBe(true);
    // Paying from that 402 succeeds.
    const right = await call(agent, 'token_info', { tokenId }, { [PAYMENT_META]: await payerFor(producer)(wrong.structuredContent as never) });
    expect(right.structuredContent).toMatchObject({ tokenId, holdersTop: expect.any(Array) });
  });

  it('a payment made over HTTP replays over MCP as the same request (one charge), and a tool pays exactly what its route pays', async () => {
    const http = await fetch(`${service.url}/entrypoints/token_buy_usd`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-wallet-address': wallet.address },
      body: JSON.stringify({ tokenId, usdAmount: '3' }),
    });
    const required = JSON.parse(Buffer.from(http.headers.get('payment-required')!, 'base64').toString());
    const mcp = await call(agent, 'token_buy_usd', { tokenId, usdAmount: '3' }, { [WALLET_META]: wallet.address });
    expect((mcp.structuredContent as { accepts: unknown[] }).accepts).toEqual(required.accepts);
    // The HTTP resource is not the tool's: signed for the route, the payload is refused over MCP.
    const payload: PaymentPayload = await payerFor(wallet)(required);
    const refused = await call(agent, 'token_buy_usd', { tokenId, usdAmount: '3' }, { [PAYMENT_META]: payload });
    expect(envelopeOf(refused).error.details).toMatchObject({ reason: 'resource_mismatch' });
  });
});

describe('free tools', () => {
  it('every one answers within its output schema (the SDK client validates each answer), with the data its HTTP route answers', async () => {
    const bought = (await callPaid(agent, 'token_buy_usd', { tokenId, usdAmount: '1' }, wallet)).result.structuredContent as any;
    const quote = await call(agent, 'get_quote', { tokenId, side: 'buy', usdAmount: '1' });
    await settle(service); // deployed: a sell can be prepared
    const answers = {
      list_tokens: await call(agent, 'list_tokens', { limit: 5, sort: 'marketCap' }),
      get_token: await call(agent, 'get_token', { tokenId }),
      list_positions: await call(agent, 'list_positions', { wallet: wallet.address, includeZero: false }),
      get_quote: quote,
      get_prices: await call(agent, 'get_prices', {}),
      list_trades: await call(agent, 'list_trades', { tokenId, limit: 2 }),
      get_candles: await call(agent, 'get_candles', { tokenId, interval: '1m' }),
      list_holders: await call(agent, 'list_holders', { tokenId }),
      list_comments: await call(agent, 'list_comments', { tokenId, limit: 5 }),
      get_payment: await call(agent, 'get_payment', { paymentId: bought.payment.paymentId }),
      get_delivery: await call(agent, 'get_delivery', { deliveryId: bought.delivery.deliveryId }),
      prepare_sell: await call(agent, 'prepare_sell', { tokenId, wallet: wallet.address, tokens: '1' }),
    };
    for (const [name, result] of Object.entries(answers)) expect({ name, isError: result.isError ?? false }).toEqual({ name, isError: false });
    const http = await json(await fetch(`${service.url}/api/tokens/${tokenId}/trades?limit=2`));
    expect(answers.list_trades.structuredContent).toEqual(http.data);
    expect(answers.list_positions.structuredContent).toMatchObject({ network: TESTNET, items: [{ tokenId }] });
    expect(answers.get_quote.structuredContent).toMatchObject({ side: 'buy', usdAmount: '1', quoteId: expect.stringMatching(/^qte_/) });
  });

  it('a bad argument or an unknown id is a tool error with the envelope\'s code', async () => {
    const notFound = await call(agent, 'get_token', { tokenId: 'tok_01JD5X8W3K2M9N7P4Q6R8S0T2V' });
    expect(notFound.isError).toBe(true);
    expect(envelopeOf(notFound).error.code).toBe('TOKEN_NOT_FOUND');
    const unknown = await call(agent, 'list_tokens', { colour: 'red' });
    expect(envelopeOf(unknown).error).toMatchObject({ code: 'VALIDATION_ERROR', details: { issues: [{ message: 'unknown field(s): colour' }] } });
  });
});

describe('the endpoint', () => {
  it('an unknown tool is a JSON-RPC error naming its code once; GET is 405 (stateless, no server stream)', async () => {
    // SDK v2 relays the message as sent (v1 prefixed it "MCP error -32602: "; decision 0071).
    await expect(agent.callTool({ name: 'steal_tokens', arguments: {} })).rejects.toMatchObject({ code: -32602, message: 'Unknown tool: steal_tokens. tools/list names every tool.' });
    const raw = await fetch(`${service.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'steal_tokens', arguments: {} } }),
    });
    expect((await json(raw)).error).toEqual({ code: -32602, message: 'Unknown tool: steal_tokens. tools/list names every tool.' });
    const get = await fetch(`${service.url}/mcp`, { headers: { accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('a body that is no JSON-RPC message is refused by the transport', async () => {
    const res = await fetch(`${service.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ hello: 'world' }),
    });
    expect(res.status).toBe(400);
    // JSON that is no JSON-RPC message is an invalid request (-32600); v1 answered it as a parse error (-32700; decision 0071).
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
  });
});

describe('protocol revisions', () => {
  const envelope = {
    'io.modelcontextprotocol/protocolVersion': MODERN_PROTOCOL_VERSION,
    'io.modelcontextprotocol/clientInfo': { name: 'raw-agent', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const post = (headers: Record<string, string>, body: unknown) =>
    fetch(`${service.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(body) });

  it('2026-07-28: a request with its envelope is answered in JSON, without initialize; without the envelope it is refused naming why', async () => {
    const listed = await post(
      { 'mcp-protocol-version': MODERN_PROTOCOL_VERSION, 'mcp-method': 'tools/list' },
      { jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: envelope } },
    );
    expect(listed.status).toBe(200);
    expect(listed.headers.get('content-type')).toMatch(/^application\/json/);
    const body = await json(listed);
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 3, result: { tools: expect.arrayContaining([expect.objectContaining({ name: 'create_token' })]) } });
    const bare = await post({ 'mcp-protocol-version': MODERN_PROTOCOL_VERSION, 'mcp-method': 'tools/list' }, { jsonrpc: '2.0', id: 4, method: 'tools/list' });
    expect(bare.status).toBe(400);
    expect((await json(bare)).error).toMatchObject({ code: -32602 });
    // server/discover names the revision, and a modern client connects at it (test/support/mcp-client.ts pins it).
    const discover = await post(
      { 'mcp-protocol-version': MODERN_PROTOCOL_VERSION, 'mcp-method': 'server/discover' },
      { jsonrpc: '2.0', id: 5, method: 'server/discover', params: { _meta: envelope } },
    );
    expect((await json(discover)).result).toMatchObject({
      supportedVersions: [MODERN_PROTOCOL_VERSION],
      capabilities: { tools: {}, resources: {}, prompts: {} },
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'x402-launchpad' } },
    });
  });

  it.each(['2025-11-25', '2025-06-18', '2025-03-26'])('%s: initialize negotiates it, and the requests after it are answered in JSON', async (version) => {
    const init = await post({}, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw-agent', version: '1.0.0' } } });
    expect(init.status).toBe(200);
    expect(init.headers.get('mcp-session-id')).toBeNull(); // stateless
    expect((await json(init)).result).toMatchObject({ protocolVersion: version, serverInfo: { name: 'x402-launchpad' }, capabilities: { tools: {} } });
    const listed = await post({ 'mcp-protocol-version': version }, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(listed.headers.get('content-type')).toMatch(/^application\/json/);
    expect((await json(listed)).result.tools.length).toBeGreaterThan(10);
  });

  it('a 2025 client (the initialize handshake) pays as a 2026-07-28 one does: the 402, the paid call, its settlement', async () => {
    const legacy = await connectMcp(`${service.url}/mcp`, {}, 'legacy');
    try {
      expect(legacy.getNegotiatedProtocolVersion()).toBe('2025-11-25');
      const before = balance();
      const { required, result } = await callPaid(legacy, 'token_info', { tokenId }, wallet);
      expect(required.accepts.every((a) => a.network === TESTNET)).toBe(true);
      expect(result.structuredContent).toMatchObject({ tokenId });
      expect(result._meta?.[PAYMENT_RESPONSE_META]).toMatchObject({ success: true, payer: wallet.address });
      expect(before - balance()).toBe(BigInt(required.accepts[0]!.amount));
    } finally {
      await legacy.close();
    }
  });
});

describe('discovery', () => {
  it('/llms.txt says what the service is, how to pay, and names every tool and endpoint', async () => {
    const res = await fetch(`${service.url}/llms.txt`);
    expect(res.headers.get('content-type')).toMatch(/^text\/markdown/);
    const text = await res.text();
    expect(text.startsWith('# x402 token launchpad\n\n> ')).toBe(true);
    for (const name of ['list_tokens', 'prepare_sell', 'create_token', 'token_sell', 'token_info']) expect(text).toContain(`\`${name}\``);
    expect(text).toContain(`${service.url}/mcp`);
    expect(text).toContain('_meta["x402/payment"]');
    expect(text).toContain('PAYMENT-SIGNATURE');
    expect(text).toContain('/api/tokens/{tokenId}/sell-authorization');
  });

  it('the MCP server card, its catalog and /.well-known/mcp.json point at the endpoint', async () => {
    const card = await fetch(`${service.url}/mcp/server-card`, { headers: { accept: 'application/mcp-server-card+json' } });
    expect(card.headers.get('content-type')).toMatch(/^application\/mcp-server-card\+json/);
    const body = await json(card);
    expect(body).toMatchObject({
      $schema: 'https://static.modelcontextprotocol.io/schemas/v2/server-card.schema.json',
      name: '127.0.0.1/x402-launchpad',
      remotes: [{ type: 'streamable-http', url: `${service.url}/mcp`, supportedProtocolVersions: expect.arrayContaining([MODERN_PROTOCOL_VERSION, '2025-11-25', '2025-06-18', '2025-03-26']) }],
    });
    expect(body.description.length).toBeLessThanOrEqual(100);
    expect(await json(await fetch(`${service.url}/.well-known/mcp/server-card.json`))).toEqual(body);
    const catalog = await json(await fetch(`${service.url}/.well-known/mcp/catalog.json`));
    expect(catalog.entries).toEqual([expect.objectContaining({ type: 'application/mcp-server-card+json', url: `${service.url}/mcp/server-card` })]);
    const doc = await json(await fetch(`${service.url}/.well-known/mcp.json`));
    expect(doc.remotes[0].url).toBe(`${service.url}/mcp`);
    expect(doc.tools.find((t: any) => t.name === 'create_token')).toMatchObject({ price: '$0.01', readOnly: false, resource: 'mcp://tool/create_token' });
    expect(doc.tools.find((t: any) => t.name === 'get_token')).toMatchObject({ price: 'free', readOnly: true });
    expect(doc.payments).toMatchObject({ paymentMeta: 'x402/payment', walletMeta: 'launchpad/wallet' });
  });

  it('/.well-known/x402 lists the paid tools with Bazaar in its MCP form, beside the HTTP resources', async () => {
    const doc = await json(await fetch(`${service.url}/.well-known/x402`));
    const mcpItems = doc.items.filter((i: any) => i.type === 'mcp');
    // Every paid entrypoint's tool (test/app/catalogue.test.ts lists them), in the catalogue's order.
    expect(mcpItems.map((i: any) => i.toolName)).toEqual([...service.application.entrypoints.values()].map((e) => e.tool.name));
    for (const item of mcpItems) {
      expect(item).toMatchObject({ resource: `${service.url}/mcp`, paymentResource: `mcp://tool/${item.toolName}`, transport: 'streamable-http' });
      expect(validateDiscoveryExtension(item.extensions.bazaar)).toEqual({ valid: true });
      expect(item.extensions.bazaar.info.input).toMatchObject({ type: 'mcp', toolName: item.toolName });
    }
    expect(doc.resources.every((r: string) => r.includes('/entrypoints/'))).toBe(true);
    expect(doc.instructions).toContain(`${service.url}/mcp`);
  });
});
