/**
 * The books know their chain (docs/decisions/0066). Each network's books — its tokens deployed at
 * their addresses, the balances delivered, the payouts sent — are true only of the chain they were
 * kept on. The first start on a database records which chain that is (its chain id, its genesis
 * block's hash, the code of its LaunchFactory); every later start compares, and a process whose
 * RPC — or devnet — is another chain is refused, naming the network and what differs. The probe
 * rounds compare again while the service runs (availability.ts).
 */
import { identityDifferences, type ChainIdentity, type IdentityDifference } from '../../domain/chain-identity.js';
import { NETWORKS, type Network } from '../../domain/network.js';
import type { ChainProbe } from '../../ports/chain-probe.js';
import type { Clock } from '../../ports/clock.js';
import type { Logger } from '../../ports/logger.js';
import type { UnitOfWork } from '../../ports/unit-of-work.js';

export interface ChainMismatch {
  network: Network;
  differences: IdentityDifference[];
}

export interface ChainAgreement {
  /** What each network's chain is compared with from now on (the probe rounds): the recorded identity. */
  recorded: Map<Network, ChainIdentity>;
  /** Networks whose chain is not the one their books were kept on. */
  mismatches: ChainMismatch[];
}

/** The name an operator accepts a network's new chain by, in ACCEPT_SETTINGS_CHANGE. */
export const acceptName = (network: Network): string => `CHAIN_${NETWORKS[network].chainId}`;

/**
 * Records each network's chain where none is recorded, and compares it where one is. `factory`:
 * the LaunchFactory this process deploys through (the recorded one is compared where there is one:
 * the books' tokens came from it). A chain that does not answer now is not checked (logged). On the
 * devnet (`devnet`), a LaunchFactory whose code changed on the same chain is this version's own,
 * placed at start by the devnet's provisioning: recorded anew. A network named in `accept`
 * (`CHAIN_<chainId>`) is recorded as it is now, whatever it was.
 */
export async function agreeOnChainIdentities(
  deps: { uow: UnitOfWork; clock: Clock; logger: Logger; chainProbe: ChainProbe },
  networks: readonly { network: Network; factory: string }[],
  options: { accept: readonly string[]; devnet: boolean },
): Promise<ChainAgreement> {
  const recorded = new Map<Network, ChainIdentity>();
  const mismatches: ChainMismatch[] = [];
  for (const { network, factory } of networks) {
    const before = await deps.uow.transaction((s) => s.chainIdentities.get(network));
    let seen: ChainIdentity;
    try {
      seen = await deps.chainProbe.identity(network, before?.factory ?? factory);
    } catch (e) {
      deps.logger.warn('the chain did not answer which chain it is at start; it is not checked until the probe rounds reach it', {
        network,
        error: (e as Error).message.split('\n')[0],
      });
      if (before) recorded.set(network, before);
      continue;
    }
    const now = deps.clock.now();
    const stands = await deps.uow.transaction((s) => s.chainIdentities.propose(seen, now));
    const differences = identityDifferences(stands, seen);
    const onlyFactory = differences.every((d) => d.what === 'factory code');
    if (differences.length === 0) {
      // A factory recorded without code has been deployed since: the same chain, now with its factory.
      if (stands.factoryCodeHash !== seen.factoryCodeHash) await deps.uow.transaction((s) => s.chainIdentities.overwrite(seen, now));
      recorded.set(network, seen);
      if (!before) deps.logger.info("recorded which chain this network's books are kept on", { ...seen });
    } else if (options.accept.includes(acceptName(network)) || (options.devnet && onlyFactory)) {
      await deps.uow.transaction((s) => s.chainIdentities.overwrite(seen, now));
      recorded.set(network, seen);
      const why = options.accept.includes(acceptName(network)) ? `ACCEPT_SETTINGS_CHANGE=${acceptName(network)}` : "the devnet's LaunchFactory of this version";
      deps.logger.warn(`the chain of ${network} changed and is recorded as it is now (${why})`, { network, from: { ...stands }, to: { ...seen } });
    } else {
      recorded.set(network, stands);
      mismatches.push({ network, differences });
    }
  }
  return { recorded, mismatches };
}

/** The one line an operator reads when a process is refused: each network and what differs, then `wayOut`. */
export function mismatchLine(mismatches: readonly ChainMismatch[], wayOut: string): string {
  const what = mismatches.map((m) => `the chain of ${m.network} is not the one this database's books were kept on (${m.differences.map((d) => d.text).join('; ')})`).join('; ');
  return `${what} — ${wayOut}`;
}
