import type { Network } from '../../../domain/network.js';
import { TESTNET } from '../../../domain/network.js';
import type { Clock } from '../../../ports/clock.js';
import type { Detection, NetworkDetector } from '../../../ports/network-detector.js';

/** A table of wallets and their networks; unknown wallets are fresh, hence testnet (docs/networks.md). */
export class FakeNetworkDetector implements NetworkDetector {
  calls = 0;
  private readonly table = new Map<string, Network>();
  private readonly failing = new Set<string>();

  constructor(
    wallets: Record<string, Network> = {},
    private readonly options: { clock?: Clock } = {},
  ) {
    for (const [w, n] of Object.entries(wallets)) this.table.set(w.toLowerCase(), n);
  }

  set(wallet: string, network: Network): void {
    this.table.set(wallet.toLowerCase(), network);
  }

  /** Detection of `wallet` throws until `recover(wallet)`, as when every RPC is down. */
  fail(wallet: string): void {
    this.failing.add(wallet.toLowerCase());
  }

  recover(wallet: string): void {
    this.failing.delete(wallet.toLowerCase());
  }

  async detect(address: string): Promise<Detection> {
    this.calls++;
    const w = address.toLowerCase();
    if (this.failing.has(w)) throw new Error(`detection unavailable for ${address}`);
    const known = this.table.get(w);
    return {
      network: known ?? TESTNET,
      reason: known ? 'table' : 'no-mainnet-history',
      checkedAt: this.options.clock?.now() ?? new Date(0),
    };
  }
}
