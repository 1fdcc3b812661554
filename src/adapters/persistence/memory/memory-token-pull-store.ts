import type { TokenPull, TokenPullStore } from '../../../ports/token-pull-store.js';
import type { MemoryDatabase, MemoryTx } from './memory-database.js';

export class MemoryTokenPullStore implements TokenPullStore {
  constructor(
    private readonly db: MemoryDatabase,
    private readonly tx: MemoryTx | null,
  ) {}

  async record(pull: TokenPull): Promise<TokenPull> {
    const existing = this.db.pulls.get(pull.paymentId);
    if (existing) return existing;
    this.db.set(this.tx, this.db.pulls, pull.paymentId, pull);
    return pull;
  }

  async get(paymentId: string): Promise<TokenPull | null> {
    return this.db.pulls.get(paymentId) ?? null;
  }

  async byTransaction(network: string, txHash: string): Promise<TokenPull | null> {
    const hash = txHash.toLowerCase();
    return [...this.db.pulls.values()].find((p) => p.network === network && p.txHash.toLowerCase() === hash) ?? null;
  }

  async replace(next: TokenPull, fromTxHash: string): Promise<boolean> {
    if (this.db.pulls.get(next.paymentId)?.txHash !== fromTxHash) return false;
    this.db.set(this.tx, this.db.pulls, next.paymentId, next);
    return true;
  }
}
