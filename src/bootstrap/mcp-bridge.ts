/**
 * The stdio bridge's composition (docs/agents.md "The stdio bridge"): its settings in, the bridge
 * adapter on stdio out. stdout carries only MCP messages; the settings and every payment go to
 * stderr, one line each.
 */
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { McpBridge } from '../adapters/mcp/bridge/mcp-bridge.js';
import type { BridgeConfig } from './config/bridge-config.js';
import { DEFAULT_SETTINGS } from '../app/kit/default-settings.js';

export interface BridgeIo {
  stdin?: Readable;
  stdout?: Writable;
  /** Where the operator's lines go: stderr. */
  log: (line: string) => void;
}

export async function startMcpBridge(config: BridgeConfig, io: BridgeIo): Promise<McpBridge> {
  const log = (line: string) => io.log(`launchpad-mcp: ${line}`);
  const bridge = new McpBridge({
    serviceUrl: config.baseUrl,
    walletKey: config.walletKey,
    maxPaymentUsd: config.maxPaymentUsd,
    budgetUsd: config.budgetUsd,
    payScheme: config.payScheme,
    version: DEFAULT_SETTINGS.serviceVersion,
    log,
  });
  for (const line of bridge.describe()) log(line);
  bridge.serve(new StdioServerTransport(io.stdin, io.stdout));
  return bridge;
}
