import type { Network } from '../domain/network.js';

export interface Detection {
  network: Network;
  /** Which signal decided, e.g. "mainnet-tx-count", "no-mainnet-history". */
  reason: string;
  checkedAt: Date;
}

/** Picks a wallet's environment from its on-chain history (docs/networks.md). Throws when it cannot answer. */
export interface NetworkDetector {
  detect(address: string): Promise<Detection>;
}
