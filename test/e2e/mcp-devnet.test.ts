/**
 * An agent on MCP, end to end on the embedded devnet: the official SDK's Client over
 * StreamableHTTPClientTransport, paying with payloads made by the official @x402/core client and
 * @x402/evm's exact scheme (docs/agents.md). The tools and their schemas; the x402 MCP 402 in both
 * places; create, buy by USD, buy by tokens and sell (prepare_sell, a signed authorization,
 * token_sell) with exact amounts and balances on chain; the same payload twice charged once; a
 * payload for another tool or other arguments refused, nothing charged; a junk payment refused
 * clearly; free tools within the free budget.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { PaymentRequiredV2Schema } from '@x402/core/schemas';
import { erc20Abi, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolJsonSchema } from '../../src/adapters/mcp/sdk/tool-listing.js';
import { PAYMENT_META, PAYMENT_RESPONSE_META, WALLET_META, X402_ERROR } from '../../src/adapters/kit/mcp/x402-mcp.js';
import { MemoryUnitOfWork } from '../../src/adapters/persistence/memory/memory-unit-of-work.js';
import { agentTools } from '../../src/app/agent-tools.js';
import { startService, type RunningService } from '../../src/bootstrap/compose.js';
import { costForTokens, DEFAULT_CURVE_PARAMS as P, initialCurveState, quoteBuyWithUsd, quoteSell, type CurveState } from '../../src/domain/curve.js';
import { formatTokens, formatUsd, parseTokens, parseUsd } from '../../src/domain/money.js';
import { TESTNET } from '../../src/domain/network.js';
import { devnetTools } from '../support/devnet.js';
import { call, callPaid, connectMcp, envelopeOf, payerFor, type ToolResult } from '../support/mcp-client.js';
import { devnetConfig, drainWorkers as drain, ShiftableClock } from '../support/service.js';
import { devAccount } from '../support/x402-client.js';

const TREASURY = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const FREE_PER_MINUTE = 100;
const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-mcp-'));
const clock = new ShiftableClock();
const uow = new MemoryUnitOfWork();
const wallet = devAccount(6); // a testnet wallet: eip155:84532
let service: RunningService;
let agent: Client;

beforeAll(async () => {
  // TRUST_PROXY: each client of this file is its own address (X-Forwarded-For), so one can spend its free budget alone.
  const config = await devnetConfig(dataDir, { RATE_LIMIT_FREE_PER_MINUTE: String(FREE_PER_MINUTE), TRUST_PROXY: '1' });
  service = await startService(config, { ports: { clock, uow } });
  agent = await connectMcp(`${service.url}/mcp`, { 'x-forwarded-for': '198.51.100.7' });
}, 60_000);

afterAll(async () => {
  await agent?.close();
  await service?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const usdc = (address: string) => devnetTools(service.devnet!).usdcBalance(TESTNET, address as Hex);
const tokenBalance = (token: string, address: string) =>
  service.devnet!.publicClient(TESTNET).readContract({ address: token as Hex, abi: erc20Abi, functionName: 'balanceOf', args: [address as Hex] });
const paymentsOf = (payer: string) => [...uow.db.payments.values()].filter((p) => p.payer === payer);
const drainWorkers = () => drain(service, clock, 6);

describe('tools/list', () => {
  it('names every tool, with the JSON Schemas of the zod schemas the API validates with, and MCP annotations', async () => {
    const { tools } = await agent.listTools();
    const expected = agentTools(service.application.entrypoints);
    // Every tool of the catalogue (test/app/catalogue.test.ts lists them), in its order.
    expect(tools.map((t) => t.name)).toEqual(expected.map((t) => t.name));
    for (const tool of expected) {
      const listed = tools.find((t) => t.name === tool.name)!;
      const zodInput = tool.kind === 'free' ? tool.inputSchema : tool.entrypoint.inputSchema;
      expect(listed.inputSchema).toEqual(toolJsonSchema(zodInput));
      expect(listed.description!.length).toBeGreaterThan(40);
      expect(listed.outputSchema).toBeDefined();
      expect(listed.annotations?.readOnlyHint).toBe(tool.readOnly);
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.create_token!.inputSchema).toEqual(toolJsonSchema(service.application.entrypoints.get('token_create')!.inputSchema));
    expect(byName.token_info!.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.token_buy_usd!.annotations).toMatchObject({ readOnlyHint: false, openWorldHint: true });
    expect(byName.token_buy_usd!.description).toContain('Price: usdAmount');
    expect(byName.create_token!.description).toContain('Price: $0.01');
    // A paid tool's answer is its result, a pending settlement, or the 402's PaymentRequired.
    expect((byName.create_token!.outputSchema as unknown as { anyOf: unknown[] }).anyOf).toHaveLength(3);
  });
});

describe('a testnet wallet creates, buys and sells through MCP, every amount exact and on chain', () => {
  let curve: CurveState = initialCurveState(P);
  let tokenId: string;
  let tokenAddress: string;
  let held = 0n;
  let createPayload: unknown;

  it('an unpaid paid tool answers the x402 PaymentRequired in structuredContent and in content[0].text, and it parses', async () => {
    const result = await call(agent, 'create_token', { name: 'Agent Cat', symbol: 'acat' }, { [WALLET_META]: wallet.address });
    expect(result.isError).toBe(true);
    const required = PaymentRequiredV2Schema.parse(result.structuredContent);
    const text = JSON.parse((result.content[0] as { text: string }).text);
    expect(text[X402_ERROR]).toEqual({ code: 402, message: expect.stringContaining('create_token'), data: result.structuredContent });
    expect(required).toMatchObject({
      x402Version: 2,
      resource: { url: 'mcp://tool/create_token', mimeType: 'application/json' },
      accepts: [
        { scheme: 'exact', network: TESTNET, asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', amount: '10000', payTo: TREASURY, extra: { name: 'USDC', version: '2' } },
        { scheme: 'exact', network: TESTNET, asset: '0x808456652fdb597867f38412077A9182bf77359F', extra: { name: 'EURC', version: '2' } },
        // The same by batch-settlement: the x402 MCP transport carries both schemes (docs/api.md "Pay once, call many").
        { scheme: 'batch-settlement', network: TESTNET, asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', amount: '10000', extra: { receiverAuthorizer: TREASURY } },
        { scheme: 'batch-settlement', network: TESTNET, asset: '0x808456652fdb597867f38412077A9182bf77359F', extra: { receiverAuthorizer: TREASURY } },
      ],
    });
    // Only the named wallet's network is offered.
    expect(required.accepts.every((a) => a.network === TESTNET)).toBe(true);
    expect(required.extensions?.bazaar).toMatchObject({ info: { input: { type: 'mcp', toolName: 'create_token', transport: 'streamable-http' } } });
    expect(required.extensions).toHaveProperty('payment-identifier');
    expect(paymentsOf(wallet.address)).toEqual([]);
  });

  it('create_token: the payer is the creator, the settlement rides in _meta, $0.01 moves on chain', async () => {
    const [walletBefore, treasuryBefore] = [await usdc(wallet.address), await usdc(TREASURY)];
    const { payload, result } = await callPaid(agent, 'create_token', { name: 'Agent Cat', symbol: 'acat' }, wallet);
    createPayload = payload;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ symbol: 'ACAT', network: TESTNET, creator: wallet.address, state: 'ACTIVE' });
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(result.structuredContent);
    expect(result._meta?.[PAYMENT_RESPONSE_META]).toMatchObject({ success: true, network: TESTNET, payer: wallet.address, transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    tokenId = (result.structuredContent as { tokenId: string }).tokenId;
    tokenAddress = (result.structuredContent as { address: string }).address;
    expect(await usdc(wallet.address)).toBe(walletBefore - 10_000n);
    expect(await usdc(TREASURY)).toBe(treasuryBefore + 10_000n);
    expect(paymentsOf(wallet.address).map((p) => [p.resource, p.resourceUrl, p.state])).toEqual([['token_create', 'mcp://tool/create_token', 'APPLIED']]);
  }, 60_000);

  it('the same payload again answers the first answer and charges nothing', async () => {
    const before = await usdc(wallet.address);
    const again = await call(agent, 'create_token', { name: 'Agent Cat', symbol: 'acat' }, { [PAYMENT_META]: createPayload });
    expect(again.isError).toBeFalsy();
    expect((again.structuredContent as { tokenId: string }).tokenId).toBe(tokenId);
    expect(await usdc(wallet.address)).toBe(before);
    expect(paymentsOf(wallet.address)).toHaveLength(1);
    expect(uow.db.tokens.size).toBe(1);
  });

  it('token_buy_usd spends exactly usdAmount and the tokens reach the wallet', async () => {
    const before = await usdc(wallet.address);
    const { required, result } = await callPaid(agent, 'token_buy_usd', { tokenId, usdAmount: '5' }, wallet);
    expect(required.accepts[0]).toMatchObject({ amount: '5000000', network: TESTNET });
    const q = quoteBuyWithUsd(P, curve, parseUsd('5'));
    curve = q.after;
    held += q.tokensOut;
    expect(result.structuredContent).toMatchObject({ tokenId, usdSpent: '5', feeUsd: '0.05', tokensReceived: formatTokens(q.tokensOut), payment: { payer: wallet.address, network: TESTNET } });
    expect(result._meta?.[PAYMENT_RESPONSE_META]).toMatchObject({ success: true });
    expect(await usdc(wallet.address)).toBe(before - 5_000_000n);
    await drainWorkers();
    expect(await tokenBalance(tokenAddress, wallet.address)).toBe(held);
  }, 60_000);

  it('token_buy_tokens charges the rounded-up cost of the tokens, and at least those tokens arrive', async () => {
    const tokens = parseTokens('1000000');
    const cost = costForTokens(P, curve, tokens);
    const before = await usdc(wallet.address);
    const { required, result } = await callPaid(agent, 'token_buy_tokens', { tokenId, tokens: '1000000' }, wallet);
    expect(required.accepts[0]!.amount).toBe(cost.toString());
    const q = quoteBuyWithUsd(P, curve, cost);
    curve = q.after;
    held += q.tokensOut;
    expect(q.tokensOut).toBeGreaterThanOrEqual(tokens);
    expect(result.structuredContent).toMatchObject({ usdSpent: formatUsd(cost), tokensReceived: formatTokens(q.tokensOut) });
    expect(await usdc(wallet.address)).toBe(before - cost);
    await drainWorkers();
    expect(await tokenBalance(tokenAddress, wallet.address)).toBe(held);
  }, 60_000);

  it('sells through prepare_sell, a signed authorization and token_sell: proceeds paid out in USDC to the unit', async () => {
    const tokens = parseTokens('500000');
    const prepared = await call(agent, 'prepare_sell', { tokenId, wallet: wallet.address, tokens: '500000' });
    expect(prepared.isError).toBeFalsy();
    const { typedData, tokenAuthorization } = prepared.structuredContent as { typedData: any; tokenAuthorization: Record<string, string> };
    expect(tokenAuthorization).toMatchObject({ from: wallet.address, value: tokens.toString() });
    const signature = await wallet.signTypedData({
      domain: typedData.domain,
      types: typedData.types,
      primaryType: typedData.primaryType,
      message: { ...typedData.message, value: BigInt(typedData.message.value), validAfter: BigInt(typedData.message.validAfter), validBefore: BigInt(typedData.message.validBefore) },
    });
    const before = await usdc(wallet.address);
    const q = quoteSell(P, curve, tokens);
    curve = q.after;
    held -= tokens;
    const { required, result } = await callPaid(agent, 'token_sell', { tokenId, tokens: '500000', tokenAuthorization: { ...tokenAuthorization, signature } }, wallet);
    expect(required.accepts[0]!.amount).toBe('10000');
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ tokenId, tokensSold: '500000', usdReceived: formatUsd(q.usdOut), payout: { wallet: wallet.address, asset: 'USDC', amount: formatUsd(q.usdOut) } });
    await drainWorkers();
    const payoutId = (result.structuredContent as { payout: { payoutId: string } }).payout.payoutId;
    const payout = await call(agent, 'get_payout', { payoutId });
    expect(payout.structuredContent).toMatchObject({ state: 'CONFIRMED', amount: formatUsd(q.usdOut) });
    expect(await usdc(wallet.address)).toBe(before - 10_000n + q.usdOut);
    expect(await tokenBalance(tokenAddress, wallet.address)).toBe(held);
    const positions = await call(agent, 'list_positions', { wallet: wallet.address });
    expect(positions.structuredContent).toMatchObject({ network: TESTNET, items: [{ tokenId, balance: formatTokens(held), onChainBalance: formatTokens(held) }] });
  }, 90_000);

  it('a payload for another tool, or for other arguments, is refused and nothing is charged', async () => {
    const pay = payerFor(wallet);
    const before = await usdc(wallet.address);
    const payments = paymentsOf(wallet.address).length;
    // token_buy_usd for $1 and create_token with a $0.99 dev buy cost the same: only the resource differs.
    const buy = await call(agent, 'token_buy_usd', { tokenId, usdAmount: '1' }, { [WALLET_META]: wallet.address });
    const buyPayload = await pay(buy.structuredContent as never);
    const otherTool = await call(agent, 'create_token', { name: 'Other', symbol: 'OTH', initialBuyUsd: '0.99' }, { [PAYMENT_META]: buyPayload });
    expect(otherTool.isError).toBe(true);
    expect(envelopeOf(otherTool).error).toMatchObject({ code: 'PAYMENT_INVALID', details: { reason: 'resource_mismatch' } });
    PaymentRequiredV2Schema.parse(otherTool.structuredContent); // the fresh offers, to pay again
    // The same payload with another amount to buy: another price.
    const otherArgs = await call(agent, 'token_buy_usd', { tokenId, usdAmount: '2' }, { [PAYMENT_META]: buyPayload });
    expect(envelopeOf(otherArgs).error).toMatchObject({ code: 'PAYMENT_INVALID', details: { reason: 'invalid_amount' } });
    // A payload already used, sent with other arguments.
    const reused = await call(agent, 'create_token', { name: 'Agent Dog', symbol: 'adog' }, { [PAYMENT_META]: createPayload });
    expect(envelopeOf(reused).error.code).toBe('PAYMENT_ALREADY_USED');
    expect(await usdc(wallet.address)).toBe(before);
    expect(paymentsOf(wallet.address)).toHaveLength(payments);
  }, 60_000);

  it('a junk payment in _meta is a clear error with the offers to pay, and nothing else happens', async () => {
    for (const junk of ['not-a-payment', { hello: 'world' }, 42]) {
      const result = await call(agent, 'token_buy_usd', { tokenId, usdAmount: '1' }, { [PAYMENT_META]: junk });
      expect(result.isError).toBe(true);
      expect(envelopeOf(result).error).toMatchObject({ code: 'PAYMENT_INVALID', message: expect.stringContaining('x402/payment'), details: { reason: 'invalid_payload' } });
      expect(PaymentRequiredV2Schema.parse(result.structuredContent).accepts[0]).toMatchObject({ amount: '1000000' });
    }
    // Bad arguments are refused before any payment matters, with the API's error code.
    const bad = await call(agent, 'token_buy_usd', { tokenId, usdAmount: '1.0000001' }, { [PAYMENT_META]: 'not-a-payment' });
    expect(bad.structuredContent).toBeUndefined();
    expect(envelopeOf(bad).error).toMatchObject({ code: 'VALIDATION_ERROR', details: { issues: [{ path: 'usdAmount' }] } });
  });
});

describe('the free budget', () => {
  it('counts free tools like free HTTP requests: past it a tool answers RATE_LIMITED, other messages 429; a paid call still goes through', async () => {
    // Connecting (2026-07-28) is 2 requests: server/discover, tools/list.
    const crawler = await connectMcp(`${service.url}/mcp`, { 'x-forwarded-for': '203.0.113.9' });
    let limited: ToolResult | undefined;
    let calls = 2;
    while (!limited && calls <= FREE_PER_MINUTE + 1) {
      const r = await call(crawler, 'list_tokens', { limit: 1 });
      calls += 1;
      if (r.isError) limited = r;
    }
    expect(calls).toBe(FREE_PER_MINUTE + 1);
    expect(envelopeOf(limited!).error).toMatchObject({ code: 'RATE_LIMITED', details: { limit: FREE_PER_MINUTE, windowSeconds: 60, retryAfterSeconds: expect.any(Number) } });
    await expect(crawler.listTools()).rejects.toThrow(/RATE_LIMITED/);
    const raw = await fetch(`${service.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-forwarded-for': '203.0.113.9' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(raw.status).toBe(429);
    expect(Number(raw.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(raw.headers.get('ratelimit-policy')).toBe(`"free";q=${FREE_PER_MINUTE};w=60`);
    expect(await raw.json()).toMatchObject({ jsonrpc: '2.0', id: 1, error: { data: { code: 'RATE_LIMITED' } } });
    // A call whose payment verifies is no free request: it is neither refused nor counted.
    const buyer = devAccount(7);
    const challenge = await call(agent, 'token_info', { tokenId: [...uow.db.tokens.keys()][0]! }, { [WALLET_META]: buyer.address });
    const paid = await call(crawler, 'token_info', { tokenId: [...uow.db.tokens.keys()][0]! }, { [PAYMENT_META]: await payerFor(buyer)(challenge.structuredContent as never) });
    expect(paid.isError).toBeFalsy();
    expect(paid._meta?.[PAYMENT_RESPONSE_META]).toMatchObject({ success: true, payer: buyer.address });
    await crawler.close();
  }, 60_000);
});
