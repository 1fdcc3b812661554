import type { ChainIdentity } from '../domain/chain-identity.js';
import type { Network } from '../domain/network.js';

/**
 * Which chain each network's books were kept on (docs/decisions/0066): recorded by the first start
 * on a database, compared by every later one and by the health probes.
 */
export interface ChainIdentityStore {
  /** The identity recorded for `network`, or null before the first start recorded one. */
  get(network: Network): Promise<ChainIdentity | null>;
  /**
   * Records `identity` unless one is recorded for its network already (atomic: of two processes
   * starting at once one wins); returns the one that stands.
   */
  propose(identity: ChainIdentity, now: Date): Promise<ChainIdentity>;
  /** Replaces the recorded identity: an operator's deliberate change (or the devnet's own new factory). */
  overwrite(identity: ChainIdentity, now: Date): Promise<void>;
}
