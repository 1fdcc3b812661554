/** The ChainProbe port for tests: every network answers until a test takes it down. */
import type { Network } from '../../../domain/network.js';
import type { ChainProbe } from '../../../ports/chain-probe.js';

export class FakeChainProbe implements ChainProbe {
  private readonly down = new Set<Network>();
  /** How many probes were made, per network. */
  readonly probes = new Map<Network, number>();

  set(network: Network, status: 'ok' | 'down'): void {
    if (status === 'down') this.down.add(network);
    else this.down.delete(network);
  }

  async probe(network: Network): Promise<'ok' | 'down'> {
    this.probes.set(network, (this.probes.get(network) ?? 0) + 1);
    return this.down.has(network) ? 'down' : 'ok';
  }
}
