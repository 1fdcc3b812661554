/**
 * What the composition root does so that several processes on one database cannot be
 * misconfigured into losing money (docs/operations.md, "Scale-out"; decisions 0031 and 0032):
 * the settlement key's lock, the shared settings' check, and each RPC's chain id.
 */
import { createPublicClient, getAddress, http, keccak256 } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { DEVNET_UNISWAP_V2 } from '../adapters/chain/anvil/devnet-constants.js';
import { LAUNCH_TOKEN_BYTECODE } from '../adapters/kit/evm/contracts/launch-contracts.js';
import { MemorySignerLocks } from '../adapters/persistence/memory/memory-signer-locks.js';
import { CustodyLease } from '../app/kit/custody-lease.js';
import { agreeOnSharedSettings, disagreementLine } from '../app/kit/shared-settings.js';
import type { Config } from './config/config.js';
import type { Settings } from '../app/kit/settings.js';
import { ALL_NETWORKS, NETWORKS, PRODUCTION, TESTNET, type Network } from '../domain/network.js';
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { SharedSetting } from '../ports/shared-settings-store.js';
import type { SignerLocks } from '../ports/signer-locks.js';
import type { TokenIssuer } from '../ports/token-issuer.js';
import type { UnitOfWork } from '../ports/unit-of-work.js';
import type { ChainAdapters } from './build-adapters.js';
import type { Closers } from './closers.js';
import type { Host } from './open-host.js';
import type { ServiceOptions } from './service-options.js';
import { StartupError } from './startup-error.js';

const SUFFIX: Record<Network, string> = { [PRODUCTION]: '8453', [TESTNET]: '84532' };

/**
 * Takes the settlement key's lock, or refuses with the one line that says which live process
 * settles with it; returns a stop for the watch that takes the lock again if its session is lost.
 */
async function lockSettlementKey(
  locks: SignerLocks,
  config: Config,
  key: `0x${string}`,
  args: { custody: string; sharedStore: boolean; logger: Logger },
): Promise<() => void> {
  const { logger } = args;
  const address = privateKeyToAccount(key).address;
  const which = config.settlementKey ? 'SETTLEMENT_KEY' : 'SETTLEMENT_KEY (unset, so TREASURY_KEY)';
  // Settling with custody's key makes a process custody's signer for its life: one that runs no
  // workers would leave custody's transactions unsent. (The embedded devnet is one machine's own.)
  if (args.sharedStore && !config.workers && config.chain === 'rpc' && address.toLowerCase() === args.custody.toLowerCase()) {
    throw new StartupError(
      `${which} is custody's key, which only a worker process signs with: an API-only process (WORKERS=false) needs its own SETTLEMENT_KEY (docs/operations.md, "Scale-out")`,
    );
  }
  if (!(await locks.tryAcquire(address))) {
    const holder = await locks.holder(address).catch(() => null);
    throw new StartupError(
      `${which} ${address} already settles payments in another live process${holder ? ` (${holder})` : ''} — give each process its own SETTLEMENT_KEY (docs/operations.md, "Scale-out")`,
    );
  }
  let warned = false;
  const watch = setInterval(() => {
    if (locks.holds(address)) return;
    void locks.tryAcquire(address).then(
      (ok) => {
        if (ok || warned) return;
        warned = true;
        logger.error("the settlement key's lock was lost and another process holds it now: settlements of both may collide (give each process its own SETTLEMENT_KEY)", { address });
      },
      () => undefined, // the database is unreachable: asked again in a few seconds
    );
  }, 5_000);
  watch.unref();
  return () => clearInterval(watch);
}

/** The chain id each RPC answers, checked against its network; null where the RPC did not answer. */
async function chainIds(rpcUrls: Partial<Record<Network, string>> | undefined, logger: Logger): Promise<Partial<Record<Network, number>>> {
  const ids: Partial<Record<Network, number>> = {};
  for (const network of [PRODUCTION, TESTNET] as const) {
    const url = rpcUrls?.[network];
    if (!url) continue;
    try {
      ids[network] = await createPublicClient({ transport: http(url, { timeout: 5_000, retryCount: 0 }) }).getChainId();
    } catch (e) {
      logger.warn('the RPC did not answer its chain id at start; it is not checked', { network, error: (e as Error).message.split('\n')[0] });
      continue;
    }
    if (ids[network] !== NETWORKS[network].chainId) {
      throw new StartupError(`RPC_URL_${SUFFIX[network]} answers chain id ${ids[network]}, not ${NETWORKS[network].chainId} — point it at a node of ${network}`);
    }
  }
  return ids;
}

/** What this process runs with, of what every process must agree on (docs/decisions/0032). */
async function sharedSettingsOf(config: Config, args: { tokenIssuer: TokenIssuer; settings: Settings; devnet: boolean; rpcUrls: Partial<Record<Network, string>> | undefined; logger: Logger }): Promise<SharedSetting[]> {
  const address = (a: string) => getAddress(a).toLowerCase();
  const ids = await chainIds(args.rpcUrls, args.logger);
  const list: SharedSetting[] = [
    { name: 'TREASURY_KEY', value: `custody ${address(args.tokenIssuer.custody(PRODUCTION))}` },
    { name: 'LAUNCH_TOKEN_BYTECODE', value: keccak256(LAUNCH_TOKEN_BYTECODE) },
  ];
  for (const network of [PRODUCTION, TESTNET] as const) {
    const id = SUFFIX[network];
    list.push({ name: `LAUNCH_FACTORY_${id}`, value: address(args.tokenIssuer.factory(network)) });
    list.push({ name: `PAY_TO_${id}`, value: address(args.settings.payTo[network]) });
    const uniswap = args.devnet ? DEVNET_UNISWAP_V2 : config.uniswapV2[network];
    list.push({ name: `UNISWAP_V2_ROUTER_${id}`, value: uniswap ? address(uniswap.router) : 'none' });
    list.push({ name: `UNISWAP_V2_FACTORY_${id}`, value: uniswap ? address(uniswap.factory) : 'none' });
    if (ids[network] !== undefined) list.push({ name: `RPC_URL_${id}`, value: `chain id ${ids[network]}` });
  }
  return list;
}

/** Records this process's shared settings, or refuses with one line naming each it disagrees on. */
async function checkSharedSettings(
  config: Config,
  deps: { uow: UnitOfWork; clock: Clock; logger: Logger; tokenIssuer: TokenIssuer; settings: Settings },
  chain: { devnet: boolean; rpcUrls: Partial<Record<Network, string>> | undefined },
): Promise<void> {
  const settings = await sharedSettingsOf(config, { ...deps, ...chain });
  let disagreements;
  try {
    disagreements = await agreeOnSharedSettings(deps, settings, config.acceptSettingsChange);
  } catch (e) {
    // The database failing now is not a configuration mistake: every request will say so.
    deps.logger.error('the shared settings could not be checked at start (the database failed)', { error: (e as Error).message });
    return;
  }
  if (disagreements.length > 0) throw new StartupError(disagreementLine(disagreements));
}

/**
 * The root's scale-out phase: this process's settlement key locked (unless another facilitator
 * settles), the shared settings agreed, and custody's lease — which process signs for custody.
 */
export async function joinScaleOut(
  config: Config,
  options: ServiceOptions,
  parts: { host: Host; uow: UnitOfWork; chain: Pick<ChainAdapters, 'tokenIssuer'> },
  closers: Closers,
): Promise<{ locks: SignerLocks; custody: CustodyLease }> {
  const { host, uow } = parts;
  const { tokenIssuer } = parts.chain;
  const given = options.ports?.signerLocks ?? uow.signerLocks;
  const locks = given ?? new MemorySignerLocks();
  if (!options.ports?.facilitator && !config.facilitatorUrl) {
    const custody = tokenIssuer.custody(PRODUCTION);
    closers.push('settlement key watch', await lockSettlementKey(locks, config, host.settlementKey, { custody, sharedStore: Boolean(given), logger: host.logger }));
  }
  const deps = { uow, clock: host.clock, logger: host.logger, tokenIssuer, settings: config.settings };
  await checkSharedSettings(config, deps, { devnet: Boolean(host.devnet), rpcUrls: host.rpc ?? undefined });
  const custody = new CustodyLease({
    locks,
    custody: tokenIssuer.custody(PRODUCTION),
    logger: host.logger,
    // Custody back after losing it: another process signed meanwhile, so the queue asks the chain.
    onGained: () => ALL_NETWORKS.forEach((n) => tokenIssuer.release(n)),
  });
  return { locks, custody };
}
