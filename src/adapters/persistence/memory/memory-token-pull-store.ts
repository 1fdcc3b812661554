import { isNotSent } from '../../../ports/custody-transaction-store.js';
import type { TokenPull, TokenPullStore } from '../../../ports/token-pull-store.js';
import { MemoryCustodyTransactionStore } from './memory-custody-transaction-store.js';
import type { MemoryDatabase, MemoryTx } from './memory-database.js';

export class MemoryTokenPullStore extends MemoryCustodyTransactionStore<TokenPull> implements TokenPullStore {
  constructor(db: MemoryDatabase, tx: MemoryTx | null) {
    super(db, tx, db.pulls);
  }

  async byTransaction(network: string, txHash: string): Promise<TokenPull | null> {
    const hash = txHash.toLowerCase();
    for (const p of this.table.values()) if (!isNotSent(p) && p.network === network && p.txHash.toLowerCase() === hash) return p;
    return null;
  }
}
