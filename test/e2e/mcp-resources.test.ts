/**
 * MCP beyond tools (docs/agents.md "Resources, prompts and logging", decision 0042): tokens as
 * resources under `launchpad://token/{tokenId}` whose read is the token's view (the same JSON as
 * `GET /tokens/:id`), the two prompts with their arguments checked, and logging's setLevel (2025
 * revisions). The agent speaks 2026-07-28; what the 2025 revisions do differently is said where it is.
 */
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/bootstrap/compose.js';
import { callPaid, connectMcp } from '../support/mcp-client.js';
import { json, startTestService } from '../support/service.js';
import { devAccount } from '../support/x402-client.js';

let service: RunningService;
let agent: Client;
let tokenId: string;

beforeAll(async () => {
  service = await startTestService();
  agent = await connectMcp(`${service.url}/mcp`);
  tokenId = ((await callPaid(agent, 'create_token', { name: 'Resource Cat', symbol: 'RCAT' }, devAccount(5))).result.structuredContent as { tokenId: string }).tokenId;
});
afterAll(async () => {
  await agent?.close();
  await service?.stop();
});

describe('tokens as resources', () => {
  it('the server offers resources, prompts and logging beside tools', () => {
    expect(agent.getServerCapabilities()).toMatchObject({ tools: {}, resources: {}, prompts: {}, logging: {} });
  });

  it('a template per token, and the tokens listed under it', async () => {
    const { resourceTemplates } = await agent.listResourceTemplates();
    expect(resourceTemplates).toEqual([expect.objectContaining({ uriTemplate: 'launchpad://token/{tokenId}', mimeType: 'application/json' })]);
    const { resources } = await agent.listResources();
    expect(resources).toContainEqual(expect.objectContaining({ uri: `launchpad://token/${tokenId}`, name: 'RCAT', title: 'Resource Cat (RCAT)', mimeType: 'application/json' }));
  });

  it("reading one is the token's view, as GET /tokens/:id answers it", async () => {
    const uri = `launchpad://token/${tokenId}`;
    const { contents } = await agent.readResource({ uri });
    expect(contents).toHaveLength(1);
    expect(contents[0]).toMatchObject({ uri, mimeType: 'application/json' });
    const http = await json(await fetch(`${service.url}/tokens/${tokenId}`));
    expect(JSON.parse((contents[0] as { text: string }).text)).toEqual(http.data);
  });

  it('an unknown token or URI is "resource not found": invalid params (-32602; -32002 before SDK v2, decision 0071), its message as sent', async () => {
    await expect(agent.readResource({ uri: 'launchpad://token/tok_01JD5X8W3K2M9N7P4Q6R8S0T2V' })).rejects.toMatchObject({
      code: -32602,
      message: 'Token tok_01JD5X8W3K2M9N7P4Q6R8S0T2V does not exist.',
      data: { code: 'TOKEN_NOT_FOUND' },
    });
    await expect(agent.readResource({ uri: 'launchpad://token/nope' })).rejects.toMatchObject({ code: -32602, data: { code: 'VALIDATION_ERROR' } });
    await expect(agent.readResource({ uri: 'file:///etc/passwd' })).rejects.toMatchObject({ code: -32602, data: { uri: 'file:///etc/passwd' } });
  });
});

describe('prompts', () => {
  it('lists "launch a token" and "trade within a budget" with their arguments', async () => {
    const { prompts } = await agent.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['launch_token', 'trade_within_budget']);
    for (const p of prompts) expect(p.description).toBeTruthy();
    expect(prompts[1]!.arguments!.filter((a) => a.required).map((a) => a.name)).toEqual(['tokenId', 'budgetUsd']);
  });

  it('a prompt is one user message naming the tools, the budget and the rule on pending payments', async () => {
    const trade = await agent.getPrompt({ name: 'trade_within_budget', arguments: { tokenId, budgetUsd: '2.5' } });
    expect(trade.messages).toHaveLength(1);
    expect(trade.messages[0]!.role).toBe('user');
    const text = (trade.messages[0]!.content as { text: string }).text;
    for (const part of [tokenId, '$2.5', 'get_quote', 'token_buy_usd', 'x402/payment', 'get_payment', 'never pay again']) expect(text).toContain(part);
    const launch = await agent.getPrompt({ name: 'launch_token', arguments: { name: 'Moon Cat', symbol: 'MCAT' } });
    expect((launch.messages[0]!.content as { text: string }).text).toContain('create_token with {"name":"Moon Cat","symbol":"MCAT"}');
  });

  it('a bad argument or an unknown prompt is invalid params (-32602)', async () => {
    await expect(agent.getPrompt({ name: 'trade_within_budget', arguments: { tokenId, budgetUsd: 'lots' } })).rejects.toMatchObject({
      code: -32602,
      data: { code: 'VALIDATION_ERROR', details: { issues: [expect.objectContaining({ path: 'budgetUsd' })] } },
    });
    await expect(agent.getPrompt({ name: 'drain_wallet' })).rejects.toMatchObject({ code: -32602, message: 'Unknown prompt: drain_wallet. prompts/list names every prompt.' });
  });
});

describe('logging', () => {
  it('setLevel is taken on the 2025 revisions; 2026-07-28 has no setLevel (a request names its level in _meta)', async () => {
    const legacy = await connectMcp(`${service.url}/mcp`, {}, 'legacy');
    try {
      await expect(legacy.setLoggingLevel('info')).resolves.toEqual({});
    } finally {
      await legacy.close();
    }
    await expect(agent.setLoggingLevel('info')).rejects.toMatchObject({ code: 'METHOD_NOT_SUPPORTED_BY_PROTOCOL_VERSION' });
  });
});
