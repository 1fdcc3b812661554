/**
 * The ChainProbe port for tests: every network answers until a test takes it down, as the same
 * chain (docs/decisions/0066) until a test makes it another one.
 */
import { keccak256, toHex } from 'viem';
import type { ChainIdentity } from '../../../domain/chain-identity.js';
import { NETWORKS, type Network } from '../../../domain/network.js';
import type { ChainProbe } from '../../../ports/chain-probe.js';

/** A fake chain's identity: the same for every FakeChainProbe, so a restart on the same books agrees. */
export const FAKE_GENESIS = keccak256(toHex('fake genesis'));
export const FAKE_FACTORY_CODE_HASH = keccak256(toHex('fake LaunchFactory'));

/** The devnet's LaunchFactory, which the fake token issuer deploys through by default. */
const DEVNET_FACTORY = '0x4c61756e6368466163746f727900000000000000';

export class FakeChainProbe implements ChainProbe {
  /** `factory`: the one address with code on these chains (default: the devnet's LaunchFactory). */
  constructor(private readonly factory: string = DEVNET_FACTORY) {}

  private readonly down = new Set<Network>();
  private readonly changed = new Map<Network, Partial<Omit<ChainIdentity, 'network' | 'factory'>>>();
  /** How many probes were made, per network. */
  readonly probes = new Map<Network, number>();
  /** How many identities were asked, per network. */
  readonly identities = new Map<Network, number>();

  set(network: Network, status: 'ok' | 'down'): void {
    if (status === 'down') this.down.add(network);
    else this.down.delete(network);
  }

  /** From now on `network` answers as another chain in these respects (none: itself again). */
  becomes(network: Network, other: Partial<Omit<ChainIdentity, 'network' | 'factory'>> | null): void {
    if (other) this.changed.set(network, other);
    else this.changed.delete(network);
  }

  async probe(network: Network): Promise<'ok' | 'down'> {
    this.probes.set(network, (this.probes.get(network) ?? 0) + 1);
    return this.down.has(network) ? 'down' : 'ok';
  }

  async identity(network: Network, factory: string): Promise<ChainIdentity> {
    this.identities.set(network, (this.identities.get(network) ?? 0) + 1);
    if (this.down.has(network)) throw new Error(`fake chain: ${network} does not answer`);
    return {
      network,
      chainId: NETWORKS[network].chainId,
      genesisHash: FAKE_GENESIS,
      factory: factory.toLowerCase(),
      factoryCodeHash: factory.toLowerCase() === this.factory.toLowerCase() ? FAKE_FACTORY_CODE_HASH : null,
      ...this.changed.get(network),
    };
  }
}
