/**
 * What agents read about the MCP endpoint, made here from the agent tools (src/app/agent-tools.ts)
 * and handed to the HTTP adapter with the endpoint (its `documents`): the server card, its
 * catalog, `/.well-known/mcp.json`, the tools' lines of llms.txt and the paid tools as
 * `/.well-known/x402` lists them. The HTTP adapter serves them and knows no MCP.
 */
import { agentTools, type AgentTool, type PaidTool } from '../../../app/agent-tools.js';
import type { AnyEntrypoint } from '../../../app/kit/catalogue/entrypoint.js';
import { mcpToolResource } from '../../../app/payments/resource.js';
import type { Settings } from '../../../app/kit/settings.js';
import { mcpBazaarExtension } from './mcp-bazaar.js';
import { mcpCatalog, mcpDocument, SERVER_CARD_MEDIA_TYPE, SERVER_CARD_SUFFIX, serverCard } from './server-card.js';
import { priceText } from './tool-listing.js';

/** A paid tool as a discovery document lists it. */
export interface DiscoverableTool {
  name: string;
  /** The x402 resource its payments name (`mcp://tool/<name>`). */
  resource: string;
  entrypoint: AnyEntrypoint;
  /** Bazaar's MCP form. */
  bazaar: Record<string, unknown>;
}

export class McpCatalogue {
  readonly tools: readonly AgentTool[];
  readonly cardMediaType = SERVER_CARD_MEDIA_TYPE;
  /** Where the card is served under the endpoint's path (`/mcp/server-card`). */
  readonly cardSuffix = SERVER_CARD_SUFFIX;
  readonly paidTools: readonly DiscoverableTool[];

  constructor(
    entrypoints: ReadonlyMap<string, AnyEntrypoint>,
    private readonly path: string,
    private readonly settings: Settings,
  ) {
    this.tools = agentTools(entrypoints);
    this.paidTools = this.tools
      .filter((t): t is PaidTool => t.kind === 'paid')
      .map((t) => ({ name: t.name, resource: mcpToolResource(t.name), entrypoint: t.entrypoint, bazaar: mcpBazaarExtension(t) }));
  }

  serverCard(origin: string) {
    return serverCard(origin, this.path, this.settings);
  }

  catalog(origin: string) {
    return mcpCatalog(origin, this.path, this.settings);
  }

  document(origin: string) {
    return mcpDocument(origin, this.path, this.tools, this.settings);
  }

  /** The tools as llms.txt lists them: name, price, what it does. */
  toolLines(): string[] {
    return this.tools.map((t) => `- \`${t.name}\` (${t.kind === 'paid' ? priceText(t, this.settings) : 'free'}): ${t.kind === 'paid' ? t.summary : t.description}`);
  }
}
