/**
 * The agent tools (src/app/agent-tools.ts) as MCP lists them (`tools/list`), and as the discovery
 * documents of the HTTP adapter describe them: JSON Schemas generated from the zod schemas the
 * service validates with, MCP annotations, and the price of a paid tool in its description.
 *
 * A paid tool's `outputSchema` names every `structuredContent` it can answer with: the
 * operation's result, the pending settlement, and the x402 `PaymentRequired` of its 402 — which
 * the transport puts in `structuredContent` of an error result, and which MCP clients (the
 * official SDK's among them) validate against the output schema like any other.
 */
import type { Tool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { AgentTool, PaidTool } from '../../../app/agent-tools.js';
import type { Settings } from '../../../app/kit/settings.js';

type JsonSchema = Record<string, unknown>;

/**
 * A zod schema as the JSON Schema an MCP tool declares, without `$schema`. Answers are described
 * as inputs are (no `additionalProperties: false`): an additive change of the API (a new field)
 * must not fail a client's validation (docs/api.md "Versioning").
 */
export function toolJsonSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _root, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

/** The `structuredContent` of a paid tool whose settlement is not final yet (not an error: get_payment finishes the story). */
export const PENDING_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'the settlement did not confirm in time: the payment is not final yet; call get_payment with paymentId',
  required: ['status', 'paymentId'],
  properties: {
    status: { const: 'pending' },
    paymentId: { type: 'string' },
    state: { type: 'string', description: 'the payment state when answered (SETTLING or SETTLED)' },
    reason: { type: 'string' },
    statusUrl: { type: 'string' },
  },
};

/** The x402 PaymentRequired of an unpaid (or refused) call, in `structuredContent` of its error result. */
export const PAYMENT_REQUIRED_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'x402 PaymentRequired (isError: true): sign one of `accepts` and call again with _meta["x402/payment"]',
  required: ['x402Version', 'accepts'],
  properties: {
    x402Version: { type: 'integer' },
    error: { type: 'string' },
    resource: { type: 'object' },
    accepts: { type: 'array', items: { type: 'object' } },
    extensions: { type: 'object' },
  },
};

export function inputJsonSchema(tool: AgentTool): JsonSchema {
  return toolJsonSchema(tool.kind === 'free' ? tool.inputSchema : tool.entrypoint.inputSchema);
}

/** What the tool answers when it succeeds. */
export function resultJsonSchema(tool: AgentTool): JsonSchema {
  return toolJsonSchema(tool.kind === 'free' ? tool.outputSchema : tool.entrypoint.outputSchema);
}

export function outputJsonSchema(tool: AgentTool): JsonSchema {
  if (tool.kind === 'free') return resultJsonSchema(tool);
  return { type: 'object', anyOf: [resultJsonSchema(tool), PENDING_SCHEMA, PAYMENT_REQUIRED_SCHEMA] };
}

/** "$0.01", or how the price follows from the arguments ("usdAmount", "quoted cost of tokens"). */
export function priceText(tool: PaidTool, settings: Settings): string {
  const price = tool.entrypoint.price(settings);
  return price.startsWith('=') ? price.slice(1).trim() : `$${price}`;
}

/** The `tools/list` entry of a tool. */
export function toolListing(tool: AgentTool, settings: Settings): Tool {
  const paid = tool.kind === 'paid';
  return {
    name: tool.name,
    title: tool.title,
    description: paid ? `${tool.description} Price: ${priceText(tool, settings)} (USDC or EURC on Base).` : `${tool.description} Free.`,
    inputSchema: inputJsonSchema(tool) as Tool['inputSchema'],
    outputSchema: outputJsonSchema(tool) as Tool['outputSchema'],
    annotations: {
      title: tool.title,
      readOnlyHint: tool.readOnly,
      destructiveHint: false,
      idempotentHint: tool.readOnly,
      // A paid tool that acts moves money and tokens on chain.
      openWorldHint: paid && !tool.readOnly,
    },
  };
}
