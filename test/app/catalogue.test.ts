/**
 * The catalogue of operations (docs/decisions/0043): one entry per operation, from which the
 * routes, the tools and the documents are made. Its entries must be consistent on their own, or
 * every transport inherits the mistake. This file spells the operations out, the list a change to
 * the API is reviewed by; every other test that checks every operation takes it from the catalogue.
 */
import { readPaths } from '../../src/adapters/web/esbuild/page-files.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { agentTools } from '../../src/app/agent-tools.js';
import { pathParams } from '../../src/app/kit/catalogue/operation.js';
import { reads } from '../../src/app/catalogue.js';
import { DEFAULT_SETTINGS } from '../../src/app/kit/default-settings.js';
import { entrypointPaths } from '../../src/app/kit/catalogue/entrypoint.js';
import { entrypoints } from '../../src/app/catalogue.js';

const catalogue = reads();
const paid = entrypoints();

describe('the catalogue of operations', () => {
  it('holds these free reads, in this order, each served as this MCP tool (or none)', () => {
    expect(catalogue.map((r) => [r.operation, r.tool?.name ?? null])).toEqual([
      ['list_tokens', 'list_tokens'],
      ['get_token', 'get_token'],
      ['list_positions', 'list_positions'],
      ['quote', 'get_quote'],
      ['prices', 'get_prices'],
      ['list_trades', 'list_trades'],
      ['candles', 'get_candles'],
      ['holders', 'list_holders'],
      ['list_comments', 'list_comments'],
      ['hide_comment', null],
      ['get_payment', 'get_payment'],
      ['get_delivery', 'get_delivery'],
      ['get_payout', 'get_payout'],
      ['get_channel', 'get_channel'],
      ['sell_authorization', 'prepare_sell'],
      ['get_raise', 'get_raise'],
      ['pledge_authorization', 'prepare_pledge'],
      ['cancel_pledge', 'cancel_pledge'],
      ['earnings', null],
      ['creators', null],
      ['stats', null],
      ['order_authorization', 'prepare_order'],
      ['list_orders', 'list_orders'],
      ['get_order', 'get_order'],
      ['order_book', 'get_order_book'],
      ['cancel_order', 'cancel_order'],
      ['set_creator_splits', null],
      ['wallet_balance', 'get_wallet_balance'],
      ['list_pledges', 'list_pledges'],
    ]);
  });

  it('names every operation, tool and path once', () => {
    const tools = agentTools(new Map(paid.map((e) => [e.name, e]))).map((t) => t.name);
    // The MCP tools: the reads' that name one, then the paid entrypoints', in the catalogue's order.
    expect(tools).toEqual([...catalogue.flatMap((r) => (r.tool ? [r.tool.name] : [])), ...paid.map((e) => e.tool.name)]);
    expect(new Set(tools).size).toBe(tools.length);
    const operations = catalogue.map((r) => r.operation);
    expect(new Set(operations).size).toBe(operations.length);
    const paths = [...catalogue.map((r) => `${r.http.method ?? 'GET'} ${r.http.path}`), ...paid.flatMap((e) => entrypointPaths(e).map((p) => `POST ${p}`))];
    expect(new Set(paths).size).toBe(paths.length);
  });

  it('gives the page each read at the path its entry routes, and no other (the build writes them into the bundle)', () => {
    expect(readPaths()).toEqual(Object.fromEntries(catalogue.map((r) => [r.operation, r.http.path])));
  });

  it('fills each path parameter into a field of the input, and lets only a field of the input be proven', () => {
    for (const r of catalogue) {
      for (const [, field] of pathParams(r.http)) expect({ op: r.operation, field, known: field in r.inputSchema.shape }).toEqual({ op: r.operation, field, known: true });
      if (r.http.walletProof) expect(r.inputSchema.shape).toHaveProperty(r.http.walletProof);
    }
  });

  it('serves each read that names a tool as that tool, with the same schemas and description', () => {
    const tools = new Map(agentTools(new Map()).map((t) => [t.name, t]));
    for (const r of catalogue.filter((c) => c.tool)) {
      const tool = tools.get(r.tool!.name);
      expect(tool).toMatchObject({ kind: 'free', title: r.tool!.title, description: r.description, readOnly: r.http.method !== 'post' });
      const json = (s: z.ZodType) => z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' });
      expect(tool?.kind === 'free' && [json(tool.inputSchema), json(tool.outputSchema)]).toEqual([json(r.inputSchema), json(r.outputSchema)]);
    }
  });

  it('holds these paid entrypoints, in this order, each its MCP tool, a fixed price from the settings or a computed one by its rule', () => {
    expect(paid.map((e) => [e.name, e.tool.name, e.priceRule.kind, e.price(DEFAULT_SETTINGS)])).toEqual([
      ['token_create', 'create_token', 'fixed', '0.01'],
      ['token_buy_usd', 'token_buy_usd', 'computed', '= usdAmount'],
      ['token_buy_tokens', 'token_buy_tokens', 'computed', '= quoted cost of tokens'],
      ['token_buy_quote', 'token_buy_quote', 'computed', "= the quote's usdAmount"],
      ['token_sell', 'token_sell', 'fixed', '0.01'],
      ['token_info', 'token_info', 'fixed', '0.001'],
      ['token_pledge', 'token_pledge', 'fixed', '0.01'],
      ['order_place', 'order_place', 'fixed', '0.01'],
      ['token_comment', 'token_comment', 'fixed', '0.001'],
      ['token_image', 'set_token_image', 'fixed', '0.01'],
    ]);
  });
});
