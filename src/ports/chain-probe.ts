import type { ChainIdentity } from '../domain/chain-identity.js';
import type { Network } from '../domain/network.js';

/**
 * Whether a network's chain answers: its RPC (the one payments settle and custody sends through)
 * replies, as that network. Readiness and the 503 before a 402 read it (docs/operations.md, "Health").
 */
export interface ChainProbe {
  /** `ok`, or `down` when the RPC does not answer in time, fails, or answers as another chain. Never throws. */
  probe(network: Network): Promise<'ok' | 'down'>;
  /**
   * Which chain the network's RPC is (docs/decisions/0066): its chain id, its genesis block's
   * hash, and the hash of the code at `factory` (null when there is none). Throws when the RPC
   * does not answer.
   */
  identity(network: Network, factory: string): Promise<ChainIdentity>;
}
