/**
 * The tools as MCP lists them, validated the way MCP clients validate (the official SDK v2's Ajv
 * validator, JSON Schema 2020-12): worked examples of every paid tool pass its input and output
 * schemas, and so do its 402 and its pending answer — which ride in `structuredContent` too.
 */
import type { JsonSchemaType } from '@modelcontextprotocol/client';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
import { describe, expect, it } from 'vitest';
import { serverName } from '../../../src/adapters/mcp/sdk/server-card.js';
import { toolListing } from '../../../src/adapters/mcp/sdk/tool-listing.js';
import { agentTools } from '../../../src/app/agent-tools.js';
import { DEFAULT_SETTINGS } from '../../../src/app/kit/default-settings.js';
import { entrypoints } from '../../../src/app/catalogue.js';
import { pendingResponse } from '../../../src/app/payments/pipeline/outcome.js';
import { usdcPaymentRequired } from '../../support/x402-client.js';

/** Each paid entrypoint's worked example, written beside its entry in its room. */
const ENTRYPOINT_EXAMPLES = Object.fromEntries(entrypoints().map((e) => [e.name, e.example]));

const tools = agentTools(new Map(entrypoints().map((e) => [e.name, e])));
const validator = new AjvJsonSchemaValidator();

describe('tools/list entries', () => {
  it('every paid tool accepts its worked example and answers within its output schema: result, pending or 402', () => {
    for (const tool of tools.filter((t) => t.kind === 'paid')) {
      const listed = toolListing(tool, DEFAULT_SETTINGS);
      const example = ENTRYPOINT_EXAMPLES[tool.entrypoint.name]!;
      const input = validator.getValidator(listed.inputSchema as JsonSchemaType)(example.input);
      const output = validator.getValidator(listed.outputSchema as JsonSchemaType);
      const required = usdcPaymentRequired({ url: `mcp://tool/${tool.name}`, description: 'x', mimeType: 'application/json' }, ['eip155:84532'], 10_000n);
      const pending = { ...(pendingResponse('pay_1', 'settlement_unknown').body as { data: object }).data, state: 'SETTLING' };
      expect({ tool: tool.name, input: input.valid, result: output(example.output).valid, pending: output(pending).valid, required: output(required).valid }).toEqual({
        tool: tool.name,
        input: true,
        result: true,
        pending: true,
        required: true,
      });
      expect(output({ something: 'else' }).valid).toBe(false);
    }
  });

  it('free tools read (but the cancels, which change what they cancel); their input schemas refuse unknown arguments', () => {
    const free = tools.filter((t) => t.kind === 'free');
    expect(free.filter((t) => !t.readOnly).map((t) => t.name).sort()).toEqual(['cancel_order', 'cancel_pledge']);
    for (const tool of free) {
      const listed = toolListing(tool, DEFAULT_SETTINGS);
      expect(listed.annotations).toMatchObject({ readOnlyHint: tool.readOnly, destructiveHint: false, openWorldHint: false });
      expect(listed.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
      expect(listed.description).toMatch(/Free\.$/);
    }
  });
});

describe('the server card name', () => {
  it('is the origin in reverse-DNS form, then the server', () => {
    expect(serverName('https://api.example.com')).toBe('com.example.api/x402-launchpad');
    expect(serverName('http://127.0.0.1:3000')).toBe('127.0.0.1/x402-launchpad');
    expect(serverName('http://localhost:3000')).toBe('localhost/x402-launchpad');
    expect(serverName('http://[::1]:3000')).toMatch(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/);
  });
});
