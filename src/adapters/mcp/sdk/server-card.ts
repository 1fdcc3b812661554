/**
 * How an agent that knows only the service's origin finds its MCP endpoint: the MCP Server Card
 * (SEP-2127, the MCP extension `experimental-ext-server-card`: identity, transport, endpoint URL,
 * protocol versions), the MCP Catalog that points at it (`/.well-known/mcp/catalog.json`), and
 * `/.well-known/mcp.json` — the card with the tools, their prices and how to pay, for agents and
 * catalogues that read one document (docs/agents.md "Discovery").
 */
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import type { AgentTool } from '../../../app/agent-tools.js';
import { mcpToolResource } from '../../../app/payments/resource.js';
import type { Settings } from '../../../app/kit/settings.js';
import { priceText } from './tool-listing.js';
import { PAYMENT_META, PAYMENT_RESPONSE_META, WALLET_META } from '../../kit/mcp/x402-mcp.js';

/**
 * The revision of the per-request era, served by mcp-endpoint.ts beside the 2025-era revisions.
 * The SDK's SUPPORTED_PROTOCOL_VERSIONS lists those `initialize` negotiates; its modern list is
 * not exported (test/e2e/mcp.test.ts connects at this revision, so it cannot drift unnoticed).
 */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';
/** Every revision /mcp speaks, newest first. */
export const PROTOCOL_VERSIONS: readonly string[] = [MODERN_PROTOCOL_VERSION, ...SUPPORTED_PROTOCOL_VERSIONS];

export const SERVER_CARD_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/v2/server-card.schema.json';
export const SERVER_CARD_MEDIA_TYPE = 'application/mcp-server-card+json';
export const SERVER_CARD_SUFFIX = '/server-card';

const TITLE = 'x402 token launchpad';
const DESCRIPTION = 'Create and trade tokens on a bonding curve, paying per call in USDC or EURC with x402.';

/** The card's `name`: the origin's host in reverse-DNS form, then the server (`com.example.api/x402-launchpad`). */
export function serverName(origin: string): string {
  const host = new URL(origin).hostname.replace(/^\[|\]$/g, '');
  const labels = /^[\d.]+$/.test(host) || host.includes(':') ? [host.replace(/:/g, '-')] : host.split('.').reverse();
  return `${labels.join('.')}/x402-launchpad`;
}

export function serverCard(origin: string, mcpPath: string, settings: Settings) {
  return {
    $schema: SERVER_CARD_SCHEMA,
    name: serverName(origin),
    version: settings.serviceVersion,
    title: TITLE,
    description: DESCRIPTION,
    websiteUrl: `${origin}/llms.txt`,
    remotes: [{ type: 'streamable-http' as const, url: `${origin}${mcpPath}`, supportedProtocolVersions: [...PROTOCOL_VERSIONS] }],
  };
}

export function mcpCatalog(origin: string, mcpPath: string, settings: Settings) {
  const card = serverCard(origin, mcpPath, settings);
  return {
    specVersion: 'draft',
    entries: [
      {
        identifier: `urn:air:${new URL(origin).hostname}:${card.name.split('/')[1]}`,
        displayName: TITLE,
        type: SERVER_CARD_MEDIA_TYPE,
        url: `${origin}${mcpPath}${SERVER_CARD_SUFFIX}`,
      },
    ],
  };
}

/** `/.well-known/mcp.json`: the card, every tool with its price, and how a call is paid. */
export function mcpDocument(origin: string, mcpPath: string, tools: readonly AgentTool[], settings: Settings) {
  return {
    ...serverCard(origin, mcpPath, settings),
    serverCard: `${origin}${mcpPath}${SERVER_CARD_SUFFIX}`,
    tools: tools.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.kind === 'paid' ? t.summary : t.description,
      readOnly: t.readOnly,
      price: t.kind === 'paid' ? priceText(t, settings) : 'free',
      ...(t.kind === 'paid' ? { resource: mcpToolResource(t.name) } : {}),
    })),
    payments: {
      protocol: 'x402',
      x402Version: 2,
      transport: 'https://github.com/coinbase/x402/blob/main/specs/transports-v2/mcp.md',
      scheme: 'exact',
      networks: ['eip155:8453', 'eip155:84532'],
      assets: ['USDC', 'EURC'],
      paymentMeta: PAYMENT_META,
      paymentResponseMeta: PAYMENT_RESPONSE_META,
      walletMeta: WALLET_META,
      howTo: `Call a paid tool without payment: it answers isError with the x402 PaymentRequired in structuredContent. Sign one offer and call again with the PaymentPayload in _meta["${PAYMENT_META}"]. Name your wallet in _meta["${WALLET_META}"] to be offered only its network.`,
    },
    docs: { llms: `${origin}/llms.txt`, openapi: `${origin}/api/openapi.json`, x402: `${origin}/.well-known/x402` },
  };
}
