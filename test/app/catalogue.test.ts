/**
 * The catalogue of operations (docs/decisions/0043): one entry per operation, from which the
 * routes, the tools and the documents are made. Its entries must be consistent on their own, or
 * every transport inherits the mistake.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { agentTools } from '../../src/app/agent-tools.js';
import { pathParams } from '../../src/app/kit/catalogue/operation.js';
import { READ_PATHS } from '../../src/app/kit/catalogue/read-paths.js';
import { reads } from '../../src/app/catalogue.js';
import { DEFAULT_SETTINGS } from '../../src/app/kit/default-settings.js';
import { entrypointPaths } from '../../src/app/kit/catalogue/entrypoint.js';
import { entrypoints } from '../../src/app/catalogue.js';

const catalogue = reads();
const paid = entrypoints();

describe('the catalogue of operations', () => {
  it('names every operation, tool and path once', () => {
    const tools = agentTools(new Map(paid.map((e) => [e.name, e]))).map((t) => t.name);
    expect(new Set(tools).size).toBe(tools.length);
    const operations = catalogue.map((r) => r.operation);
    expect(new Set(operations).size).toBe(operations.length);
    const paths = [...catalogue.map((r) => `${r.http.method ?? 'GET'} ${r.http.path}`), ...paid.flatMap((e) => entrypointPaths(e).map((p) => `POST ${p}`))];
    expect(new Set(paths).size).toBe(paths.length);
  });

  it('routes each read at its path in READ_PATHS, the table the page requests from, which names no other', () => {
    expect(Object.fromEntries(catalogue.map((r) => [r.operation, r.http.path]))).toEqual(READ_PATHS);
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

  it('states a fixed price from the settings and a computed one by its rule', () => {
    expect(paid.map((e) => [e.name, e.priceRule.kind, e.price(DEFAULT_SETTINGS)])).toEqual([
      ['token_create', 'fixed', '0.01'],
      ['token_buy_usd', 'computed', '= usdAmount'],
      ['token_buy_tokens', 'computed', '= quoted cost of tokens'],
      ['token_buy_quote', 'computed', "= the quote's usdAmount"],
      ['token_sell', 'fixed', '0.01'],
      ['token_info', 'fixed', '0.001'],
      ['token_pledge', 'fixed', '0.01'],
      ['order_place', 'fixed', '0.01'],
      ['token_comment', 'fixed', '0.001'],
      ['token_image', 'fixed', '0.01'],
    ]);
  });
});
