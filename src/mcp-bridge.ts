/**
 * The stdio MCP bridge's entry point (`node bin/launchpad-mcp.js`, docs/agents.md): settings from the
 * environment (BASE_URL, WALLET_KEY, MAX_PAYMENT_USD, BUDGET_USD), then MCP on stdin/stdout until
 * the client closes it. Nothing but MCP is written to stdout.
 */
import { loadBridgeConfig } from './bootstrap/config/bridge-config.js';
import { ConfigError } from './bootstrap/config/config-error.js';
import { startMcpBridge } from './bootstrap/mcp-bridge.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadBridgeConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(`launchpad-mcp: ${e.message}`);
      process.exit(2);
    }
    throw e;
  }
  const bridge = await startMcpBridge(config, { log: (line) => console.error(line) });
  const stop = () => void bridge.close().finally(() => process.exit(0));
  process.stdin.on('end', stop);
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((e: unknown) => {
  console.error('launchpad-mcp:', e);
  process.exit(1);
});
