import type { Network } from '../../../domain/network.js';
import type { Position } from '../../../domain/position.js';
import type { PositionRepository } from '../../../ports/position-repository.js';
import type { MemoryDatabase, MemoryTx } from './memory-database.js';

const key = (network: string, wallet: string, tokenId: string) => `${network}|${wallet.toLowerCase()}|${tokenId}`;

export class MemoryPositionRepository implements PositionRepository {
  constructor(
    private readonly db: MemoryDatabase,
    private readonly tx: MemoryTx | null,
  ) {}

  async get(network: Network, wallet: string, tokenId: string): Promise<Position | null> {
    return this.db.positions.get(key(network, wallet, tokenId)) ?? null;
  }

  async save(position: Position): Promise<void> {
    this.db.set(this.tx, this.db.positions, key(position.network, position.wallet, position.tokenId), position);
  }

  async listByWallet(network: Network, wallet: string): Promise<Position[]> {
    const w = wallet.toLowerCase();
    return [...this.db.positions.values()]
      .filter((p) => p.network === network && p.wallet.toLowerCase() === w)
      .sort((a, b) => (a.tokenId < b.tokenId ? -1 : 1));
  }

  async holders(tokenId: string, limit: number): Promise<Position[]> {
    return this.holding(tokenId)
      .sort((a, b) =>
        a.balance === b.balance ? (a.wallet.toLowerCase() < b.wallet.toLowerCase() ? -1 : 1) : a.balance > b.balance ? -1 : 1,
      )
      .slice(0, limit);
  }

  async countHolders(tokenId: string): Promise<number> {
    return this.holding(tokenId).length;
  }

  async ofWallets(tokenId: string, wallets: readonly string[]): Promise<Position[]> {
    const named = new Set(wallets.map((w) => w.toLowerCase()));
    return [...this.db.positions.values()].filter((p) => p.tokenId === tokenId && named.has(p.wallet.toLowerCase()));
  }

  private holding(tokenId: string): Position[] {
    return [...this.db.positions.values()].filter((p) => p.tokenId === tokenId && p.balance > 0n);
  }
}
