/** Which chain each network's books were kept on, in memory. */
import type { ChainIdentity } from '../../../domain/chain-identity.js';
import type { Network } from '../../../domain/network.js';
import type { ChainIdentityStore } from '../../../ports/chain-identity-store.js';
import type { MemoryDatabase, MemoryTx } from './memory-database.js';

export class MemoryChainIdentityStore implements ChainIdentityStore {
  constructor(
    private readonly db: MemoryDatabase,
    private readonly tx: MemoryTx | null,
  ) {}

  async get(network: Network): Promise<ChainIdentity | null> {
    const recorded = this.db.chainIdentities.get(network);
    return recorded ? { ...recorded } : null;
  }

  async propose(identity: ChainIdentity): Promise<ChainIdentity> {
    const recorded = this.db.chainIdentities.get(identity.network);
    if (recorded) return { ...recorded };
    this.db.set(this.tx, this.db.chainIdentities, identity.network, { ...identity });
    return { ...identity };
  }

  async overwrite(identity: ChainIdentity): Promise<void> {
    this.db.set(this.tx, this.db.chainIdentities, identity.network, { ...identity });
  }
}
