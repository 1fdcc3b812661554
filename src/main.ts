/** The entry point: configuration, composition, start, and a graceful stop on SIGINT/SIGTERM. */
import { ConfigError, loadConfig } from './bootstrap/config/config.js';
import { startService } from './bootstrap/compose.js';
import { StartupError } from './bootstrap/startup-error.js';

const WALLETS: [number, string][] = [
  [1, 'production (USDC + EURC on eip155:8453)'],
  [2, 'production (USDC + EURC on eip155:8453)'],
  [3, 'production (USDC + EURC on eip155:8453)'],
  [4, 'production (USDC + EURC on eip155:8453)'],
  [5, 'testnet (USDC + EURC on eip155:84532)'],
  [6, 'testnet (USDC + EURC on eip155:84532)'],
  [7, 'testnet (USDC + EURC on eip155:84532)'],
  [8, 'testnet (USDC + EURC on eip155:84532)'],
  [9, 'testnet (USDC + EURC on eip155:84532)'],
];

/**
 * Output whose reader is gone (`npm start | head`, a closed terminal) drops the lines rather than
 * ending the service: an uncaught EPIPE mid-stop would kill the devnet's chains as they stop.
 */
function dropOutputWithoutReader(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE') throw e;
    });
  }
}

async function main(): Promise<void> {
  dropOutputWithoutReader();
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(e.message);
      process.exit(2);
    }
    throw e;
  }
  let service;
  try {
    service = await startService(config);
  } catch (e) {
    if (e instanceof StartupError) {
      console.error(e.message);
      process.exit(1);
    }
    // Anything else is one line too; its stack only when asked for.
    if (config.logLevel === 'debug') throw e;
    console.error(`x402 launchpad could not start: ${e instanceof Error ? e.message : String(e)} (LOG_LEVEL=debug prints the stack)`);
    process.exit(1);
  }
  // The page at / is built in the background now, so the first visitor does not wait for it.
  void service.warmPage();
  const lines = [`x402 launchpad listening on ${service.url}`, `the page for people: ${service.url}/`];
  if (service.devnet) {
    const { devnetAccount } = await import('./adapters/chain/anvil/devnet-constants.js');
    lines.push(
      `devnet eip155:8453  (production) RPC ${service.devnet.chains['eip155:8453'].rpcUrl}`,
      `devnet eip155:84532 (testnet)    RPC ${service.devnet.chains['eip155:84532'].rpcUrl}`,
      `funded wallets (anvil mnemonic "test test test test test test test test test test test junk"):`,
      `  #0 ${devnetAccount(0).address}  the service: treasury, payTo, settlement signer`,
      ...WALLETS.map(([i, what]) => `  #${i} ${devnetAccount(i).address}  ${what}`),
    );
  }
  lines.push(`try: curl ${service.url}/entrypoints   then: ${demoCommand(service.url)}`);
  console.log(lines.join('\n'));

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: finishing in-flight requests and stopping`);
    await service.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

/** The exact `npm run demo` line for this service (scripts/demo.ts reads PORT or BASE_URL). */
function demoCommand(url: string): string {
  const { hostname, port } = new URL(url);
  if (hostname !== '127.0.0.1') return `BASE_URL=${url} npm run demo`;
  return port === '3000' ? 'npm run demo' : `PORT=${port} npm run demo`;
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
