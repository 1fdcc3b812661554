import type { ProofNonceStore } from '../../../ports/proof-nonce-store.js';
import type { MemoryDatabase, MemoryTx } from './memory-database.js';

export class MemoryProofNonceStore implements ProofNonceStore {
  constructor(
    private readonly db: MemoryDatabase,
    private readonly tx: MemoryTx | null,
  ) {}

  async use(wallet: string, nonce: string, expiresAt: Date): Promise<boolean> {
    const key = `${wallet.toLowerCase()}|${nonce}`;
    if (this.db.proofNonces.has(key)) return false;
    this.db.set(this.tx, this.db.proofNonces, key, expiresAt);
    return true;
  }

  async purgeExpired(before: Date, limit: number): Promise<number> {
    const expired = [...this.db.proofNonces].filter(([, at]) => at < before).sort(([, a], [, b]) => a.getTime() - b.getTime()).slice(0, limit);
    for (const [key] of expired) this.db.delete(this.tx, this.db.proofNonces, key);
    return expired.length;
  }
}
