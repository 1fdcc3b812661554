/**
 * The Bazaar discovery extension in its MCP form (x402 `specs/extensions/bazaar.md`, `input.type:
 * "mcp"`), built with @x402/extensions/bazaar: the tool's name, description, transport, the JSON
 * Schema of its arguments (the one `tools/list` declares) and a worked example. Every 402 of a paid
 * tool carries it, and `/.well-known/x402` lists the paid tools with it.
 */
import { declareDiscoveryExtension } from '@x402/extensions/bazaar';
import type { PaidTool } from '../../../app/agent-tools.js';
import { inputJsonSchema } from './tool-listing.js';

export const BAZAAR = 'bazaar';

type JsonSchema = Record<string, unknown>;

const built = new WeakMap<PaidTool, JsonSchema>();

export function mcpBazaarExtension(tool: PaidTool): JsonSchema {
  let extension = built.get(tool);
  if (!extension) {
    const example = tool.entrypoint.example;
    extension = declareDiscoveryExtension({
      toolName: tool.name,
      description: tool.entrypoint.description,
      transport: 'streamable-http',
      inputSchema: inputJsonSchema(tool),
      ...(example ? { example: example.input as Record<string, unknown>, output: { example: example.output } } : {}),
    })[BAZAAR] as unknown as JsonSchema;
    built.set(tool, extension);
  }
  return extension;
}
