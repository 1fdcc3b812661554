import type { CreatorSplit } from '../domain/fees.js';
import type { Network } from '../domain/network.js';
import type { Token, TokenImageUrls, TokenState } from '../domain/token.js';
import type { DevVesting } from '../domain/vesting.js';
import type { Page, PageRequest } from './page.js';

export type TokenSort = 'created' | 'marketCap' | 'volume24h';

export interface TokenListQuery extends PageRequest {
  network?: Network | undefined;
  state?: TokenState | undefined;
  creator?: string | undefined;
  /** Case-insensitive prefix of the name or the symbol. */
  q?: string | undefined;
  sort: TokenSort;
  /** For `volume24h`: trades at or after this instant count. */
  since: Date;
}

/** A token that is (or will be) on chain, as the transfer indexer follows it. */
export interface OnChainTokenRef {
  tokenId: string;
  address: string;
  /** The block its deployment was mined in, when known. */
  deployedBlock: bigint | null;
  deployed: boolean;
  /** Its Uniswap v2 pair, once graduation created the pool. */
  pair: string | null;
}

export interface TokenRepository {
  insert(token: Token): Promise<void>;
  get(tokenId: string): Promise<Token | null>;
  /**
   * Reads the token and locks it until the enclosing unit of work ends, so trades on one token
   * are serialised (SELECT … FOR UPDATE; the write lock on SQLite). `positionOf`: a wallet whose
   * position on the token this unit of work reads next (`positions.get`); an adapter may read it
   * with the token, so that read costs no statement of its own (decision 0051).
   */
  getForUpdate(tokenId: string, positionOf?: string): Promise<Token | null>;
  /** What a trade, a deployment or a graduation changes; never its creator splits nor its vesting (below). */
  update(token: Token): Promise<void>;
  /** The wallets its creator share is split among from now on (null: the creator alone); nothing else of it changes. */
  setCreatorSplits(tokenId: string, splits: readonly CreatorSplit[] | null): Promise<void>;
  /** Locks its dev buy's tokens on `vesting`'s schedule, in the create's transaction; a token that vests already fails it. */
  startVesting(tokenId: string, vesting: DevVesting): Promise<void>;
  /**
   * Stores `next` (a release, or only when to look next) if the vesting has had `fromReleases`
   * releases still: false when another pass (or process) released first.
   */
  releaseVesting(tokenId: string, next: DevVesting, fromReleases: number): Promise<boolean>;
  /** Tokens whose vesting a pass should look at by `now` (nextReleaseAt ≤ now), soonest first. */
  dueVestings(now: Date, limit: number): Promise<Token[]>;
  /** Names the token's new image and thumbnail (its creator changed them); nothing else of it changes. */
  setImage(tokenId: string, image: TokenImageUrls): Promise<void>;
  /** Tokens created before tokens went on chain (no `address`), oldest first: the backfill's work. */
  listWithoutAddress(limit: number): Promise<Token[]>;
  /** Every token of `network` that has an address (deployed or not yet), by tokenId. */
  listOnChain(network: Network): Promise<OnChainTokenRef[]>;
  /**
   * The token whose contract or Uniswap v2 pair is at `address`, on any network, whatever its
   * letters' case; null when none is. (A referrer there could never spend its share.)
   */
  findByAddress(address: string): Promise<{ tokenId: string; network: Network; what: 'token' | 'pair' } | null>;
  /** Keyset pagination: the cost of a page does not grow with its depth. A bad cursor → VALIDATION_ERROR. */
  list(query: TokenListQuery): Promise<Page<Token>>;
}
