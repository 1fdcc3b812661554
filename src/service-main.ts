/** The service: configuration, composition, start, and a graceful stop on SIGINT/SIGTERM (started by main.ts, on Node 24). */
import { ConfigError, loadConfig, type Config } from './bootstrap/config/config.js';
import { startService, type RunningService } from './bootstrap/compose.js';
import { StartupError } from './bootstrap/startup-error.js';

/** The funded demo wallets, by the network their history puts them on (docs/operations.md). */
const WALLETS: [what: string, indexes: number[]][] = [
  ['production, eip155:8453', [1, 2, 3, 4]],
  ['testnet, eip155:84532', [5, 6, 7, 8, 9]],
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

/** The devnet wallet whose key the banner prints: a testnet wallet, like a newcomer's. */
const PASTE_WALLET = 5;

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
  // Listening from the first moment: a SIGTERM while the chains start still stops them.
  let service: RunningService | undefined;
  let stopping: string | undefined;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = signal;
    if (!service) return; // start() below stops what it started once it returns
    console.log(`${signal}: finishing in-flight requests and stopping`);
    await service.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
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
  if (stopping) {
    const signal = stopping;
    stopping = undefined;
    return stop(signal);
  }
  // The page at / is built in the background now, so the first visitor does not wait for it.
  void service.warmPage();
  console.log((await banner(service)).join('\n'));
  await warnAboutRedis(config, service);
}

/** What a person reads first: where the page is, what to run next, how to stop, a key to paste. */
async function banner(service: RunningService): Promise<string[]> {
  const page = `${service.url}/`;
  const demo = demoCommand(service.url);
  const width = Math.max(page.length, demo.length) + 3;
  const lines = [
    `x402 launchpad listening on ${service.url}`,
    '',
    `  open  ${page.padEnd(width)}the page: tokens, charts, trading from a browser wallet`,
    `  demo  ${demo.padEnd(width)}in another terminal: launches, buys and sells two tokens, printing their pages`,
    '  stop  Ctrl-C',
  ];
  if (service.devnet) {
    const { devnetAccount } = await import('./adapters/chain/anvil/devnet-constants.js');
    const keyOf = (i: number) => `0x${Buffer.from(devnetAccount(i).getHdKey().privateKey!).toString('hex')}`;
    const short = (address: string) => `${address.slice(0, 6)}…${address.slice(-4)}`;
    const key = keyOf(PASTE_WALLET);
    lines.push(
      '',
      'on two local devnet chains (anvil), not Base: nothing here costs real money',
      `  eip155:8453  (production) RPC ${service.devnet.chains['eip155:8453'].rpcUrl}`,
      `  eip155:84532 (testnet)    RPC ${service.devnet.chains['eip155:84532'].rpcUrl}`,
      `a funded testnet wallet for the MCP bridge and the examples (docs/agents.md, docs/clients.md) —`,
      `anvil's well-known devnet key #${PASTE_WALLET}, public to everyone: never send it real money:`,
      `  WALLET_KEY=${key}`,
      `every funded demo wallet (10,000 USDC and EURC each) with its key, to import into a browser wallet:`,
      `anvil's well-known devnet keys, public to everyone: never send them real money`,
      ...WALLETS.flatMap(([what, indexes]) => [`  ${what}`, ...indexes.map((i) => `  #${i} ${short(devnetAccount(i).address)}  ${keyOf(i)}`)]),
      `  #0 ${short(devnetAccount(0).address)}  the service itself: treasury, payTo, settlement signer`,
      `  (each from the mnemonic "test test test test test test test test test test test junk")`,
    );
  }
  lines.push('', `try: curl ${service.url}/entrypoints   then: ${demoCommand(service.url)}`);
  return lines;
}

/**
 * A REDIS_URL that does not answer at start: the service runs on (Redis may come back, and each
 * process then counts the free budget itself, docs/rate-limits.md), but says so in one line.
 */
async function warnAboutRedis(config: Config, service: RunningService): Promise<void> {
  if (!config.redisUrl) return;
  await new Promise((r) => setTimeout(r, 1_500).unref()); // ioredis's connect timeout is 1 s
  const { report } = await service.application.health();
  if (report.checks.rateLimiter !== 'ok') {
    console.error('warning: REDIS_URL does not answer — the free budget is counted in this process alone until it does (GET /health says "degraded")');
  }
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
