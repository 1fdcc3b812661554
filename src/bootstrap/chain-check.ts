/**
 * The root's chain phase (docs/decisions/0066): which chain each network's books were kept on,
 * recorded by the first start on the database and compared by every later one. A chain that is
 * not that one refuses the start with one line naming the network, what differs and the way out;
 * what stands is handed to the probe rounds, which compare again while the service runs.
 */
import { isAbsolute, relative, resolve } from 'node:path';
import { acceptName, agreeOnChainIdentities, mismatchLine, type ChainMismatch } from '../app/kit/chain-identity.js';
import type { AvailabilityDeps } from '../app/kit/availability.js';
import { describeDifferences, type ChainIdentity } from '../domain/chain-identity.js';
import { ALL_NETWORKS, type Network } from '../domain/network.js';
import type { UnitOfWork } from '../ports/unit-of-work.js';
import type { ChainAdapters } from './build-adapters.js';
import type { Config } from './config/config.js';
import type { Host } from './open-host.js';
import { StartupError } from './startup-error.js';

/** Whether the database is a SQLite file inside DATA_DIR (then deleting DATA_DIR deletes the books too). */
function databaseInDataDir(config: Config): boolean {
  if (!config.databaseUrl.startsWith('sqlite:')) return false;
  const file = config.databaseUrl.slice('sqlite:'.length);
  if (file === '' || file === ':memory:') return false;
  const inside = relative(resolve(config.dataDir), resolve(file));
  return inside !== '' && !inside.startsWith('..') && !isAbsolute(inside);
}

/**
 * How an operator gets out: on the devnet its chains are in DATA_DIR/devnet, and a devnet whose
 * state and journal are gone cannot be rebuilt — the books go with it; on real networks, the RPC
 * that points elsewhere is fixed (or the new chain accepted, deliberately).
 */
function wayOut(config: Config, devnet: boolean, mismatches: readonly ChainMismatch[]): string {
  if (devnet) {
    const books = databaseInDataDir(config) ? `(its service.db holds the books of the chains that are gone)` : `and start on an empty database (DATABASE_URL holds the books of the chains that are gone)`;
    return `the devnet's state and journal in DATA_DIR/devnet were deleted or replaced and cannot be rebuilt: to start over, stop the service and delete the whole DATA_DIR ${config.dataDir} ${books} (docs/operations.md, "Starting over")`;
  }
  const rpc = mismatches.map((m) => `RPC_URL_${m.network.split(':')[1]}`).join(' and ');
  const names = mismatches.map((m) => acceptName(m.network)).join(',');
  return `point ${rpc} at a node of the chain the books were kept on; to keep these books on this chain regardless, start once with ACCEPT_SETTINGS_CHANGE=${names} (docs/operations.md, "The books know their chain")`;
}

/** What the probe rounds compare each network's chain with, and how they agree on one the start could not. */
export interface ChainWatch {
  identities?: ReadonlyMap<Network, ChainIdentity>;
  agree: NonNullable<AvailabilityDeps['agree']>;
}

/**
 * Each network's chain agreed with the books, or the start refused; returns what the probe rounds
 * compare with, and how they record or compare a chain that did not answer at start (none when
 * there is no chain to probe: tests over fakes).
 */
export async function checkChains(
  config: Config,
  parts: { host: Host; uow: UnitOfWork; chain: Pick<ChainAdapters, 'chainProbe' | 'tokenIssuer'> },
): Promise<ChainWatch | undefined> {
  const { host, uow } = parts;
  const { chainProbe, tokenIssuer } = parts.chain;
  if (!chainProbe) return undefined;
  const devnet = Boolean(host.devnet);
  const agreeOn = (networks: readonly Network[]) =>
    agreeOnChainIdentities(
      { uow, clock: host.clock, logger: host.logger, chainProbe },
      networks.map((network) => ({ network, factory: tokenIssuer.factory(network) })),
      { accept: config.acceptSettingsChange, devnet },
    );
  const agree: ChainWatch['agree'] = async (network) => {
    const agreement = await agreeOn([network]);
    const mismatch = agreement.mismatches[0];
    return { recorded: agreement.recorded.get(network) ?? null, foreign: mismatch ? describeDifferences(mismatch.differences) : null };
  };
  let agreement;
  try {
    agreement = await agreeOn(ALL_NETWORKS);
  } catch (e) {
    // The database failing now is not a chain that differs: every request will say so, and the rounds agree once it answers.
    host.logger.error('which chain the books were kept on could not be checked at start (the database failed)', { error: (e as Error).message });
    return { agree };
  }
  if (agreement.mismatches.length > 0) throw new StartupError(mismatchLine(agreement.mismatches, wayOut(config, devnet, agreement.mismatches)));
  return { identities: agreement.recorded, agree };
}
