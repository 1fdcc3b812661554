/**
 * The root's first phase: the clock, the logger, DATA_DIR's lock and the chains — the embedded
 * devnet or the configured RPCs — with the keys that sign on them and one nonce queue per key.
 */
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { Hex } from 'viem';
import { AnvilDevnet, DevnetPortInUse } from '../adapters/chain/anvil/anvil-devnet.js';
import { AnvilNotInstalled } from '../adapters/chain/anvil/anvil-process.js';
import { devnetAccount, LAUNCH_FACTORY_ADDRESS } from '../adapters/chain/anvil/devnet-constants.js';
import { SystemClock } from '../adapters/clock/system/system-clock.js';
import { newNonceQueue } from '../adapters/kit/evm/signed-transactions.js';
import { PinoLogger } from '../adapters/logging/pino/pino-logger.js';
import { PRODUCTION, TESTNET, type Network } from '../domain/network.js';
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { Closers } from './closers.js';
import type { Config } from './config/config.js';
import type { ServiceOptions } from './service-options.js';
import { lockDataDir } from './start-refusals.js';
import { StartupError } from './startup-error.js';

type NonceQueue = ReturnType<typeof newNonceQueue>;

export interface Host {
  clock: Clock;
  logger: Logger;
  /** Each network's RPC; null when every chain-facing port is given (tests over fakes). */
  rpc: Record<Network, string> | null;
  devnet: AnvilDevnet | null;
  treasuryKey: Hex;
  settlementKey: Hex;
  /** One nonce queue per signing key in this process: settlements and payouts on one key never collide. */
  treasuryNonces: NonceQueue;
  settlementNonces: NonceQueue;
  launchFactories: Partial<Record<Network, string>>;
  /** Blocks a nonce must be used below the head before one of our transactions is called dropped (decision 0056). */
  droppedAfterBlocks: number;
}

const devnetKey = (): Hex => `0x${Buffer.from(devnetAccount(0).getHdKey().privateKey!).toString('hex')}`;

/**
 * Whether this service keeps anything in DATA_DIR: the devnet's state, or the SQLite file when
 * it lies there (PostgreSQL with the devnet still keeps the chains there).
 */
function usesDataDir(config: Config, devnet: boolean, ownDatabase: boolean): boolean {
  if (devnet) return true;
  if (!ownDatabase || !config.databaseUrl.startsWith('sqlite:')) return false;
  const file = config.databaseUrl.slice('sqlite:'.length);
  if (file === '' || file === ':memory:') return false;
  const inside = relative(resolve(config.dataDir), resolve(file));
  return inside !== '' && !inside.startsWith('..') && !isAbsolute(inside);
}

async function startDevnet(config: Config, logger: Logger): Promise<AnvilDevnet> {
  try {
    return await AnvilDevnet.start({
      port: config.devnetPort,
      stateDir: join(config.dataDir, 'devnet'),
      idleBlockMs: config.devnetIdleBlockMs,
      logger,
      // startService holds DATA_DIR's lock whenever the devnet runs.
      stateDirLocked: true,
    });
  } catch (e) {
    // One line for the operator: attaching to another instance's devnet would share its treasury.
    if (e instanceof AnvilNotInstalled || e instanceof DevnetPortInUse) throw new StartupError(e.message);
    throw e;
  }
}

/** The chains, when a port that needs one is not given: the configured RPCs (the first URL of each writes), or the devnet. */
async function openChains(config: Config, logger: Logger, closers: Closers): Promise<Pick<Host, 'rpc' | 'devnet'>> {
  if (config.chain === 'rpc') return { rpc: { [PRODUCTION]: config.rpcUrls[PRODUCTION]![0]!, [TESTNET]: config.rpcUrls[TESTNET]![0]! }, devnet: null };
  const devnet = await startDevnet(config, logger);
  closers.push('devnet', () => devnet.stop());
  return { rpc: { [PRODUCTION]: devnet.chains[PRODUCTION].rpcUrl, [TESTNET]: devnet.chains[TESTNET].rpcUrl }, devnet };
}

export async function openHost(config: Config, options: ServiceOptions, closers: Closers): Promise<Host> {
  const given = options.ports ?? {};
  const clock = given.clock ?? new SystemClock();
  let logger = given.logger;
  if (!logger) {
    const pino = new PinoLogger({ level: config.logLevel, format: config.logFormat });
    closers.push('logger', () => pino.flush());
    logger = pino;
  }
  // A test that brings its own facilitator brings its own chain too.
  const needsChain = !given.facilitator || !given.payoutSender || !given.authorizations || !given.tokenIssuer;
  // Before anything touches DATA_DIR: a second instance there would share (and stop) the first's chains.
  if (usesDataDir(config, needsChain && config.chain === 'devnet', !given.uow)) {
    const lock = await lockDataDir(config);
    closers.push('DATA_DIR lock', () => lock.release());
  }
  const { rpc, devnet } = needsChain ? await openChains(config, logger, closers) : { rpc: null, devnet: null };
  const treasuryKey = config.treasuryKey ?? devnetKey();
  const settlementKey = config.settlementKey ?? treasuryKey;
  const treasuryNonces = newNonceQueue();
  const settlementNonces = settlementKey.toLowerCase() === treasuryKey.toLowerCase() ? treasuryNonces : newNonceQueue();
  // Custody of launched tokens is the treasury key: its transactions share the treasury's nonces.
  const launchFactories = devnet ? { [PRODUCTION]: LAUNCH_FACTORY_ADDRESS, [TESTNET]: LAUNCH_FACTORY_ADDRESS } : config.launchFactories;
  return { clock, logger, rpc, devnet, treasuryKey, settlementKey, treasuryNonces, settlementNonces, launchFactories, droppedAfterBlocks: config.droppedAfterBlocks };
}
