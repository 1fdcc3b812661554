import type { CreatorSplit } from '../../../domain/fees.js';
import type { Token, TokenImageUrls } from '../../../domain/token.js';
import type { DevVesting } from '../../../domain/vesting.js';
import type { Page } from '../../../ports/page.js';
import type { Network } from '../../../domain/network.js';
import type { OnChainTokenRef, TokenListQuery, TokenRepository } from '../../../ports/token-repository.js';
import { decodeCursor, encodeCursor } from '../kit/cursor.js';
import { sortKey } from '../kit/token-order.js';
import type { MemoryDatabase, MemoryTx } from './memory-database.js';

export class MemoryTokenRepository implements TokenRepository {
  constructor(
    private readonly db: MemoryDatabase,
    private readonly tx: MemoryTx | null,
  ) {}

  async insert(token: Token): Promise<void> {
    if (this.db.tokens.has(token.tokenId)) throw new Error(`duplicate token ${token.tokenId}`);
    this.db.set(this.tx, this.db.tokens, token.tokenId, token);
  }

  async get(tokenId: string): Promise<Token | null> {
    return this.db.tokens.get(tokenId) ?? null;
  }

  /** Transactions on the memory database are already serial: the lock is implicit. */
  async getForUpdate(tokenId: string): Promise<Token | null> {
    return this.get(tokenId);
  }

  /** As the SQL stores: the creator splits and the vesting stay as stored (their own methods change them). */
  async update(token: Token): Promise<void> {
    const stored = this.db.tokens.get(token.tokenId);
    if (!stored) throw new Error(`unknown token ${token.tokenId}`);
    this.db.set(this.tx, this.db.tokens, token.tokenId, { ...token, creatorSplits: stored.creatorSplits, vesting: stored.vesting });
  }

  async setCreatorSplits(tokenId: string, splits: readonly CreatorSplit[] | null): Promise<void> {
    const token = this.db.tokens.get(tokenId);
    if (!token) throw new Error(`unknown token ${tokenId}`);
    this.db.set(this.tx, this.db.tokens, tokenId, { ...token, creatorSplits: splits });
  }

  async startVesting(tokenId: string, vesting: DevVesting): Promise<void> {
    const token = this.db.tokens.get(tokenId);
    if (!token || token.vesting) throw new Error(`token ${tokenId} is unknown or vests already`);
    this.db.set(this.tx, this.db.tokens, tokenId, { ...token, vesting });
  }

  async releaseVesting(tokenId: string, next: DevVesting, fromReleases: number): Promise<boolean> {
    const token = this.db.tokens.get(tokenId);
    if (!token?.vesting || token.vesting.releases !== fromReleases) return false;
    this.db.set(this.tx, this.db.tokens, tokenId, { ...token, vesting: next });
    return true;
  }

  async dueVestings(now: Date, limit: number): Promise<Token[]> {
    return [...this.db.tokens.values()]
      .filter((t) => t.vesting?.nextReleaseAtMs != null && t.vesting.nextReleaseAtMs <= now.getTime())
      .sort((a, b) => a.vesting!.nextReleaseAtMs! - b.vesting!.nextReleaseAtMs! || (a.tokenId < b.tokenId ? -1 : 1))
      .slice(0, limit);
  }

  async setImage(tokenId: string, image: TokenImageUrls): Promise<void> {
    const token = this.db.tokens.get(tokenId);
    if (!token) throw new Error(`unknown token ${tokenId}`);
    this.db.set(this.tx, this.db.tokens, tokenId, { ...token, ...image });
  }

  async listWithoutAddress(limit: number): Promise<Token[]> {
    return [...this.db.tokens.values()]
      .filter((t) => t.address === null)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.tokenId < b.tokenId ? -1 : 1))
      .slice(0, limit);
  }

  async listOnChain(network: Network): Promise<OnChainTokenRef[]> {
    return [...this.db.tokens.values()]
      .filter((t) => t.network === network && t.address !== null)
      .sort((a, b) => (a.tokenId < b.tokenId ? -1 : 1))
      .map((t) => ({
        tokenId: t.tokenId,
        address: t.address!,
        deployedBlock: t.deployment.blockNumber,
        deployed: t.deployment.state === 'DEPLOYED',
        pair: t.pool?.address ?? null,
      }));
  }

  async findByAddress(address: string): Promise<{ tokenId: string; network: Network; what: 'token' | 'pair' } | null> {
    const a = address.toLowerCase();
    for (const t of this.db.tokens.values()) {
      if (t.address?.toLowerCase() === a) return { tokenId: t.tokenId, network: t.network, what: 'token' };
      if (t.pool?.address?.toLowerCase() === a) return { tokenId: t.tokenId, network: t.network, what: 'pair' };
    }
    return null;
  }

  async list(query: TokenListQuery): Promise<Page<Token>> {
    const after = query.cursor ? decodeCursor(query.cursor, ['k', 'id'] as const) : null;
    const q = query.q?.toLowerCase();
    const volumes = new Map<string, bigint>();
    if (query.sort === 'volume24h') {
      for (const t of this.db.trades) {
        if (t.createdAt >= query.since) volumes.set(t.tokenId, (volumes.get(t.tokenId) ?? 0n) + t.usdAmount);
      }
    }
    const rows = [...this.db.tokens.values()]
      .filter(
        (t) =>
          (!query.network || t.network === query.network) &&
          (!query.state || t.state === query.state) &&
          (!query.creator || t.creator.toLowerCase() === query.creator.toLowerCase()) &&
          (!q || t.name.toLowerCase().startsWith(q) || t.symbol.toLowerCase().startsWith(q)),
      )
      .map((t) => ({ t, k: sortKey(t, query.sort, volumes.get(t.tokenId) ?? 0n) }))
      .filter(({ t, k }) => !after || k < after.k || (k === after.k && t.tokenId < after.id))
      .sort((a, b) => (a.k === b.k ? cmp(b.t.tokenId, a.t.tokenId) : cmp(b.k, a.k)));
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    return {
      items: page.map((r) => r.t),
      nextCursor: rows.length > query.limit && last ? encodeCursor({ k: last.k, id: last.t.tokenId }) : null,
    };
  }
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
