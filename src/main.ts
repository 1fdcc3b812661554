/** The entry point: configuration, composition, start, and a graceful stop on SIGINT/SIGTERM. */
import { ConfigError, loadConfig } from './app/config.js';
import { startService } from './app/compose.js';

async function main(): Promise<void> {
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
  const service = await startService(config);
  console.log(`x402 launchpad listening on ${service.url}`);
  console.log(`  free:  GET ${service.url}/tokens   GET ${service.url}/entrypoints   GET ${service.url}/health`);
  console.log(`  paid:  POST ${service.url}/tokens   POST ${service.url}/entrypoints/token_buy_usd …`);

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

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
