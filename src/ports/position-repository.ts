import type { Network } from '../domain/network.js';
import type { Position } from '../domain/position.js';

export interface PositionRepository {
  get(network: Network, wallet: string, tokenId: string): Promise<Position | null>;
  /** Inserts or replaces the position of (network, wallet, tokenId). */
  save(position: Position): Promise<void>;
  listByWallet(network: Network, wallet: string): Promise<Position[]>;
  /** Positions with a positive balance, largest first (ties: lower-cased wallet ascending). */
  holders(tokenId: string, limit: number): Promise<Position[]>;
  countHolders(tokenId: string): Promise<number>;
  /** The positions of these wallets in a token (those that have one), in one query: a comment thread's authors. */
  ofWallets(tokenId: string, wallets: readonly string[]): Promise<Position[]>;
}
