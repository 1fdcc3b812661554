import type { Network } from '../domain/network.js';

/**
 * Whether a network's chain answers: its RPC (the one payments settle and custody sends through)
 * replies, as that network. Readiness and the 503 before a 402 read it (docs/operations.md, "Health").
 */
export interface ChainProbe {
  /** `ok`, or `down` when the RPC does not answer in time, fails, or answers as another chain. Never throws. */
  probe(network: Network): Promise<'ok' | 'down'>;
}
