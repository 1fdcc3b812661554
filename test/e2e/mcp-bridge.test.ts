/**
 * The stdio bridge as a local agent's MCP client runs it (docs/agents.md "The stdio bridge"): the
 * `launchpad-mcp` bin spawned by the official SDK's StdioClientTransport, forwarding to a running
 * service (over fakes: the facilitator checks every signature). It prints its settings to stderr,
 * pays under the cap, refuses over the cap and past the budget without signing, names its wallet
 * and signs a sell's authorization itself.
 */
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { toHex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeFacilitator } from '../../src/adapters/facilitator/fake/fake-facilitator.js';
import { PAYMENT_RESPONSE_META } from '../../src/adapters/kit/mcp/x402-mcp.js';
import type { MemoryUnitOfWork } from '../../src/adapters/persistence/memory/memory-unit-of-work.js';
import type { RunningService } from '../../src/bootstrap/compose.js';
import { TESTNET } from '../../src/domain/network.js';
import { call, envelopeOf } from '../support/mcp-client.js';
import { settle, ShiftableClock, startTestService } from '../support/service.js';
import { DEV_MNEMONIC, devAccount } from '../support/x402-client.js';
import { pollUntil } from '../support/wait.js';
import { mnemonicToAccount } from 'viem/accounts';

const clock = new ShiftableClock();
const facilitator = new FakeFacilitator({ clock, defaultBalance: 10_000_000_000n });
const wallet = devAccount(8); // testnet
const walletKey = toHex(mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 8 }).getHdKey().privateKey!);
let service: RunningService;
let agent: Client;
let stderr = '';

beforeAll(async () => {
  service = await startTestService({ ports: { clock, facilitator } });
  const transport = bridgeTransport({});
  transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  agent = new Client({ name: 'launchpad-bridge-test', version: '1.0.0' });
  await agent.connect(transport);
}, 60_000);

/** The bridge as a host spawns it; `env` over its settings. */
function bridgeTransport(env: Record<string, string>): StdioClientTransport {
  return new StdioClientTransport({
    command: process.execPath,
    args: [join(import.meta.dirname, '..', '..', 'bin', 'launchpad-mcp.js')],
    env: { BASE_URL: service.url, WALLET_KEY: walletKey, MAX_PAYMENT_USD: '0.5', BUDGET_USD: '1', ...env },
    stderr: 'pipe',
  });
}

afterAll(async () => {
  await agent?.close();
  await service?.stop();
});

const db = () => (service.application.deps.uow as MemoryUnitOfWork).db;
const payments = () => [...db().payments.values()].filter((p) => p.payer === wallet.address);
const spent = async () => ((await call(agent, 'wallet_info', {})).structuredContent as { spentUsd: string }).spentUsd;

describe('the stdio bridge', () => {
  let tokenId: string;

  it('prints its settings to stderr and offers the service tools, with what it fills in optional, and its wallet', async () => {
    const { tools } = await agent.listTools();
    expect(stderr).toContain(`launchpad-mcp: service ${service.url}/mcp`);
    expect(stderr).toContain(`launchpad-mcp: wallet ${wallet.address} (WALLET_KEY)`);
    expect(stderr).toContain('at most $0.5 per call (MAX_PAYMENT_USD) and $1 for this run (BUDGET_USD)');
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(Object.keys(byName)).toEqual(expect.arrayContaining(['list_tokens', 'create_token', 'token_sell', 'prepare_sell', 'wallet_info']));
    expect(byName.token_sell!.inputSchema.required).not.toContain('tokenAuthorization');
    expect(byName.list_positions!.inputSchema.required ?? []).not.toContain('wallet');
    expect(byName.create_token!.description).toContain(`This bridge pays it from ${wallet.address}`);
    expect((await call(agent, 'wallet_info', {})).structuredContent).toEqual({
      wallet: wallet.address,
      service: `${service.url}/mcp`,
      maxPaymentUsd: '0.5',
      budgetUsd: '1',
      spentUsd: '0',
      remainingUsd: '1',
    });
  });

  it('pays under the cap, on its own network, and says what it paid', async () => {
    const result = await call(agent, 'create_token', { name: 'Bridge Cat', symbol: 'BCAT' });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ creator: wallet.address, network: TESTNET });
    expect(result._meta?.[PAYMENT_RESPONSE_META]).toMatchObject({ success: true, payer: wallet.address });
    expect((result.content.at(-1) as { text: string }).text).toMatch(/^The bridge paid \$0\.01 USDC on eip155:84532 from 0x/);
    tokenId = (result.structuredContent as { tokenId: string }).tokenId;
    const bought = await call(agent, 'token_buy_usd', { tokenId, usdAmount: '0.45' });
    expect(bought.structuredContent).toMatchObject({ usdSpent: '0.45' });
    expect(payments().map((p) => [p.resource, p.state])).toEqual([
      ['token_create', 'APPLIED'],
      ['token_buy_usd', 'APPLIED'],
    ]);
    expect(await spent()).toBe('0.46');
    expect(stderr).toMatch(/paid token_buy_usd: \$0\.45 USDC on eip155:84532; spent \$0\.46 of \$1/);
  });

  it('refuses a price over MAX_PAYMENT_USD without signing anything', async () => {
    const verified = facilitator.verifyCalls;
    const result = await call(agent, 'token_buy_usd', { tokenId, usdAmount: '0.6' });
    expect(result.isError).toBe(true);
    expect(envelopeOf(result).error).toMatchObject({ code: 'OVER_MAX_PAYMENT', details: { priceUsd: '0.6', maxPaymentUsd: '0.5' } });
    expect(facilitator.verifyCalls).toBe(verified);
    expect(payments()).toHaveLength(2);
    expect(await spent()).toBe('0.46');
  });

  it('sells by signing the token authorization itself, and reads positions of its own wallet', async () => {
    await settle(service); // deployed, and the bought tokens delivered to the wallet
    const sold = await call(agent, 'token_sell', { tokenId, tokens: '1000' });
    expect(sold.isError).toBeFalsy();
    expect(sold.structuredContent).toMatchObject({ tokenId, tokensSold: '1000', payout: { wallet: wallet.address } });
    const positions = await call(agent, 'list_positions', {});
    expect(positions.structuredContent).toMatchObject({ wallet: wallet.address, items: [{ tokenId }] });
    expect(await spent()).toBe('0.47');
  });

  it('speaks 2026-07-28 on stdio to a host that opens with it, as it speaks 2025 to the one above', async () => {
    expect(agent.getProtocolEra()).toBe('legacy');
    const modern = new Client({ name: 'launchpad-bridge-test-2026', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await modern.connect(bridgeTransport({ WALLET_KEY: '' }));
    try {
      expect(modern.getProtocolEra()).toBe('modern');
      const { tools } = await modern.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['create_token', 'wallet_info']));
      expect((await call(modern, 'get_token', { tokenId })).structuredContent).toMatchObject({ tokenId });
    } finally {
      await modern.close();
    }
  });

  it('stops at BUDGET_USD: a payment past it is refused without signing', async () => {
    expect((await call(agent, 'token_buy_usd', { tokenId, usdAmount: '0.5' })).structuredContent).toMatchObject({ usdSpent: '0.5' });
    expect(await spent()).toBe('0.97');
    const verified = facilitator.verifyCalls;
    const before = payments().length;
    const result = await call(agent, 'token_buy_usd', { tokenId, usdAmount: '0.05' });
    expect(envelopeOf(result).error).toMatchObject({ code: 'OVER_BUDGET', details: { priceUsd: '0.05', budgetUsd: '1', spentUsd: '0.97' } });
    expect(facilitator.verifyCalls).toBe(verified);
    expect(payments()).toHaveLength(before);
    // Free tools still answer.
    expect((await call(agent, 'get_token', { tokenId })).isError).toBeFalsy();
    expect(stderr).toContain('refused token_buy_usd: Paying $0.05 would pass BUDGET_USD');
  });
});

describe('the stdio bridge pays over batch-settlement by default', () => {
  it('one deposit within BUDGET_USD, a voucher per call, the rest refunded at exit: the wallet is short of exactly what it was charged', async () => {
    const created = await call(agent, 'create_token', { name: 'Channel Cat', symbol: 'CHCAT' });
    const tokenId = (created.structuredContent as { tokenId: string }).tokenId;
    const payer = devAccount(9); // testnet, its own wallet and channel
    const key = toHex(mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 9 }).getHdKey().privateKey!);
    const before = facilitator.balanceOf(TESTNET, payer.address);
    const deposits = () => facilitator.batch.transactions.filter((t) => t.kind === 'deposit').length;
    const depositsBefore = deposits();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(import.meta.dirname, '..', '..', 'bin', 'launchpad-mcp.js')],
      env: { BASE_URL: service.url, WALLET_KEY: key, MAX_PAYMENT_USD: '0.5', BUDGET_USD: '1' },
      stderr: 'pipe',
    });
    let log = '';
    transport.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
    const own = new Client({ name: 'launchpad-bridge-channel', version: '1.0.0' });
    await own.connect(transport);
    for (let i = 0; i < 5; i++) {
      const info = await call(own, 'token_info', { tokenId });
      expect(info.isError, JSON.stringify(info.content)).toBeFalsy();
      expect((info.content.at(-1) as { text: string }).text).toMatch(/by a voucher on its batch-settlement channel/);
    }
    const mine = [...db().payments.values()].filter((p) => p.payer === payer.address);
    expect(mine.map((p) => p.state)).toEqual(['APPLIED', 'APPLIED', 'APPLIED', 'APPLIED', 'APPLIED']);
    const charged = mine.reduce((sum, p) => sum + p.amount, 0n);
    expect(deposits() - depositsBefore).toBe(1);
    expect(log).toContain('pays from a batch-settlement channel where offered');
    // At exit the bridge refunds what the channel holds beyond its charges.
    await own.close();
    await pollUntil(async () => /refunded the eip155:84532 channel/.test(log), { timeoutMs: 30_000, stepMs: 100 });
    expect(log).toMatch(/refunded the eip155:84532 channel/);
    expect(before - facilitator.balanceOf(TESTNET, payer.address)).toBe(charged);
  });
});
