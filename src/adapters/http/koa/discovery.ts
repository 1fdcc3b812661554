/**
 * Discovery by agents and catalogues (docs/api.md "Discovery: Bazaar metadata and `/.well-known/x402`"), built with @x402/extensions/bazaar so the
 * shapes are the extension's own:
 *
 * - the Bazaar extension of every paid route: the example input and output, with the JSON
 *   Schemas generated from the zod schemas the server validates with. It rides in every 402 (a
 *   Bazaar facilitator catalogues it from the payment payload that echoes it);
 * - GET /.well-known/x402: x402scan's discovery document (`version: 1`, `resources`: the URLs to
 *   probe), plus `items` in the shape a Bazaar facilitator lists resources in — each with its
 *   price, its payment requirements when the price is fixed, and its Bazaar extension; the paid
 *   MCP tools too, as `type: "mcp"` items with Bazaar's MCP form (docs/agents.md).
 */
import { bazaarResourceServerExtension, declareDiscoveryExtension } from '@x402/extensions/bazaar';
import { z } from 'zod';
import type { AnyEntrypoint } from '../../../app/kit/catalogue/entrypoint.js';
import { batchRequirementsFor, requirementsFor, X402_VERSION } from '../../../app/payments/requirements.js';
import type { Settings } from '../../../app/kit/settings.js';
import { formatUsd, parseUsd } from '../../../domain/money.js';
import { ALL_NETWORKS } from '../../../domain/network.js';
import type { PaymentRequirements } from '../../../ports/facilitator.js';

export const WELL_KNOWN_X402 = '/.well-known/x402';
export const BAZAAR_KEY = 'bazaar';

type JsonSchema = Record<string, unknown>;

/** The one URL discovery names for an entrypoint (it also answers at …/invoke, and create at /tokens). */
export const canonicalPath = (ep: Pick<AnyEntrypoint, 'name'>): string => `/entrypoints/${ep.name}`;

/** A zod schema as a JSON Schema to embed in another document: no `$schema` of its own. */
export function embedded(schema: z.ZodType, io: 'input' | 'output' = 'output'): JsonSchema {
  const { $schema: _root, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

/**
 * `extensions.bazaar` for an entrypoint: declared, then enriched with the HTTP method exactly as
 * x402ResourceServer does for a route (`bazaarResourceServerExtension.enrichDeclaration`).
 */
export function bazaarExtension(ep: AnyEntrypoint): JsonSchema {
  let extension = built.get(ep);
  if (!extension) built.set(ep, (extension = buildBazaarExtension(ep)));
  return extension;
}

// The declaration depends only on the entrypoint: built once, shared by every 402 and document.
const built = new WeakMap<AnyEntrypoint, JsonSchema>();

function buildBazaarExtension(ep: AnyEntrypoint): JsonSchema {
  const example = ep.example;
  const declared = declareDiscoveryExtension({
    bodyType: 'json',
    input: example.input,
    inputSchema: embedded(ep.inputSchema, 'input'),
    output: { example: example.output, schema: embedded(ep.outputSchema, 'output') },
  })[BAZAAR_KEY];
  const transport = { method: 'POST', adapter: { getPath: () => canonicalPath(ep) } };
  return bazaarResourceServerExtension.enrichDeclaration!(declared, transport) as JsonSchema;
}

/** The price of an entrypoint as discovery documents state it: fixed, or set per request within bounds. */
export type DiscoveryPrice =
  | { mode: 'fixed'; currency: 'USD'; amount: string }
  | { mode: 'dynamic'; currency: 'USD'; min: string; max: string; rule: string };

export function discoveryPrice(ep: AnyEntrypoint, settings: Settings): DiscoveryPrice {
  const rule = ep.priceRule;
  if (rule.kind === 'fixed') return { mode: 'fixed', currency: 'USD', amount: formatUsd(rule.usd(settings)) };
  return { mode: 'dynamic', currency: 'USD', min: formatUsd(settings.minBuyUsd), max: formatUsd(settings.maxBuyUsd), rule: rule.rule };
}

export interface DiscoveryItem {
  resource: string;
  type: 'http';
  x402Version: number;
  method: 'POST';
  description: string;
  mimeType: 'application/json';
  price: DiscoveryPrice;
  /** The requirements of a fixed price on every network (production first); empty when the price depends on the body. */
  accepts: PaymentRequirements[];
  extensions: { bazaar: JsonSchema };
}

/**
 * A paid MCP tool as a catalogue lists it: the MCP endpoint and the tool name (Bazaar's key for an
 * MCP resource), the x402 resource its payments name, and Bazaar's MCP form.
 */
export interface McpDiscoveryItem {
  resource: string;
  type: 'mcp';
  toolName: string;
  transport: 'streamable-http';
  paymentResource: string;
  x402Version: number;
  description: string;
  mimeType: 'application/json';
  price: DiscoveryPrice;
  accepts: PaymentRequirements[];
  extensions: { bazaar: JsonSchema };
}

export interface DiscoveryDocument {
  version: 1;
  resources: string[];
  instructions: string;
  x402Version: number;
  items: (DiscoveryItem | McpDiscoveryItem)[];
}

/** The paid MCP tools, when the service serves MCP (the endpoint's path). */
export interface McpDiscovery {
  path: string;
  /** Each with its x402 resource and Bazaar's MCP form, as the MCP adapter makes them. */
  tools: readonly { name: string; resource: string; entrypoint: AnyEntrypoint; bazaar: JsonSchema }[];
}

/**
 * The requirements of a fixed price on every network (production first), by `exact` and then by
 * `batch-settlement` where it is offered (docs/api.md "Pay once, call many"); none when the price
 * depends on the input.
 */
function fixedAccepts(price: DiscoveryPrice, settings: Settings): PaymentRequirements[] {
  const fixed = price.mode === 'fixed' ? parseUsd(price.amount) : null;
  if (fixed === null) return [];
  const exact = ALL_NETWORKS.map((n) => requirementsFor(n, fixed, settings.payTo[n]));
  const batch = settings.batchSettlement;
  return batch ? [...exact, ...exact.map((r) => batchRequirementsFor(r, batch))] : exact;
}

/** The document of GET /.well-known/x402, with absolute URLs under `origin`. */
export function discoveryDocument(entrypoints: Iterable<AnyEntrypoint>, settings: Settings, origin: string, mcp?: McpDiscovery): DiscoveryDocument {
  const all = [...entrypoints];
  const items = all.map((ep): DiscoveryItem => {
    const price = discoveryPrice(ep, settings);
    return {
      resource: `${origin}${canonicalPath(ep)}`,
      type: 'http',
      x402Version: X402_VERSION,
      method: 'POST',
      description: ep.description,
      mimeType: 'application/json',
      price,
      accepts: fixedAccepts(price, settings),
      extensions: { bazaar: bazaarExtension(ep) },
    };
  });
  const tools = (mcp?.tools ?? []).map((tool): McpDiscoveryItem => {
    const price = discoveryPrice(tool.entrypoint, settings);
    return {
      resource: `${origin}${mcp!.path}`,
      type: 'mcp',
      toolName: tool.name,
      transport: 'streamable-http',
      paymentResource: tool.resource,
      x402Version: X402_VERSION,
      description: tool.entrypoint.description,
      mimeType: 'application/json',
      price,
      accepts: fixedAccepts(price, settings),
      extensions: { bazaar: tool.bazaar },
    };
  });
  return {
    version: 1,
    // The URLs to probe with an HTTP POST: the entrypoints (an MCP tool is reached through its endpoint).
    resources: items.map((i) => i.resource),
    instructions: instructions(all, settings, mcp && `${origin}${mcp.path}`),
    x402Version: X402_VERSION,
    items: [...items, ...tools],
  };
}

function instructions(entrypoints: AnyEntrypoint[], settings: Settings, mcpUrl?: string): string {
  const lines = entrypoints.map((ep) => {
    const p = discoveryPrice(ep, settings);
    const price = p.mode === 'fixed' ? `$${p.amount}` : `${p.rule} ($${p.min}–$${p.max})`;
    return `- POST ${canonicalPath(ep)} — ${price}. ${ep.description}`;
  });
  return [
    '# x402 token launchpad',
    '',
    'Paid entrypoints take a JSON body (the input itself or `{ "input": { … } }`); the body is validated before any 402.',
    'Pay with an EIP-3009 USDC authorization in PAYMENT-SIGNATURE (x402 v2, scheme exact) on Base (eip155:8453) or Base Sepolia (eip155:84532),',
    'or from a channel by scheme batch-settlement (one deposit, a voucher per call; GET /entrypoints/<name> refunds the rest);',
    'the network is chosen from the paying wallet’s history. Free reads: GET /tokens, /positions, /api/*; the catalogue: GET /entrypoints.',
    ...(mcpUrl ? [`The same operations are MCP tools at ${mcpUrl} (Streamable HTTP; paid with the x402 MCP transport, _meta["x402/payment"]); see /llms.txt.`] : []),
    '',
    ...lines,
  ].join('\n');
}
