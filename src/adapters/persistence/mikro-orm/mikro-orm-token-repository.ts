import type { CurveParams } from '../../../domain/curve.js';
import type { CreatorSplit } from '../../../domain/fees.js';
import type { Token, TokenImageUrls } from '../../../domain/token.js';
import type { DevVesting } from '../../../domain/vesting.js';
import type { Page } from '../../../ports/page.js';
import type { Network } from '../../../domain/network.js';
import type { OnChainTokenRef, TokenListQuery, TokenRepository } from '../../../ports/token-repository.js';
import { decodeCursor, encodeCursor } from '../kit/cursor.js';
import { sortKey } from '../kit/token-order.js';
import { big, num } from './exact-bigint-type.js';
import { positionColumns, positionOfRow, type PrefetchedPositions } from './mikro-orm-position-repository.js';
import { exactlyOne, ms, type Sql } from './sql.js';
import { exactInt, Table, writeOnly } from './table.js';

const paramsJson = (t: Pick<Token, 'params' | 'launchFee' | 'launchMode' | 'feeMode'>) =>
  JSON.stringify({
    totalSupply: num(t.params.totalSupply),
    curveSupply: num(t.params.curveSupply),
    initialVirtualUsd: num(t.params.initialVirtualUsd),
    initialVirtualTokens: num(t.params.initialVirtualTokens),
    feeBps: num(t.params.feeBps),
    ...(t.launchFee ? { launchFeeStartBps: num(t.launchFee.startBps), launchFeeMs: num(t.launchFee.decayMs) } : {}),
    ...(t.launchMode === 'fair' ? { launchMode: 'fair' } : {}),
    ...(t.feeMode === 'cashback' ? { feeMode: 'cashback' } : {}),
  });

/** A vesting's fixed terms (its counts live in columns of their own: a release changes them). */
const vestingJson = (v: DevVesting | null) =>
  v ? JSON.stringify({ amount: num(v.amount), startsAt: v.startsAtMs, cliffSeconds: v.cliffSeconds, durationSeconds: v.durationSeconds }) : null;

function vestingOfRow(r: Record<string, unknown>): DevVesting | null {
  if (r.vesting === null || r.vesting === undefined) return null;
  const terms = JSON.parse(String(r.vesting)) as { amount: string; startsAt: number; cliffSeconds: number; durationSeconds: number };
  return {
    amount: BigInt(terms.amount),
    startsAtMs: terms.startsAt,
    cliffSeconds: terms.cliffSeconds,
    durationSeconds: terms.durationSeconds,
    released: big(r.vesting_released ?? 0),
    releases: Number(r.vesting_releases ?? 0),
    nextReleaseAtMs: r.vesting_next_at === null || r.vesting_next_at === undefined ? null : Number(r.vesting_next_at),
  };
}

const splitsJson = (splits: readonly CreatorSplit[] | null) => (splits ? JSON.stringify(splits.map((s) => ({ wallet: s.wallet, bps: s.bps }))) : null);

const TOKENS = new Table<Token>(
  'tokens',
  {
    token_id: (t) => t.tokenId,
    network: (t) => t.network,
    name: (t) => t.name,
    name_lower: writeOnly((t) => t.name.toLowerCase()),
    symbol: (t) => t.symbol,
    symbol_lower: writeOnly((t) => t.symbol.toLowerCase()),
    description: (t) => t.description,
    image_url: (t) => t.imageUrl,
    thumbnail_url: (t) => t.thumbnailUrl,
    creator: (t) => t.creator,
    creator_lower: writeOnly((t) => t.creator.toLowerCase()),
    state: (t) => t.state,
    params: paramsJson,
    virtual_usd: exactInt((t) => t.curve.virtualUsd),
    virtual_tokens: exactInt((t) => t.curve.virtualTokens),
    tokens_sold: exactInt((t) => t.curve.tokensSold),
    market_cap_key: writeOnly((t) => sortKey(t, 'marketCap', 0n)),
    created_at: (t) => t.createdAt.getTime(),
    graduated_at: (t) => t.graduatedAt?.getTime() ?? null,
    address: (t) => t.address,
    deployment_state: (t) => t.deployment.state,
    deployment_tx: (t) => t.deployment.txHash,
    deployment_block: exactInt((t) => t.deployment.blockNumber),
    pool_state: (t) => t.pool?.state ?? null,
    pool_address: (t) => t.pool?.address ?? null,
    pool_tx: (t) => t.pool?.txHash ?? null,
    website: (t) => t.links.website,
    twitter: (t) => t.links.twitter,
    telegram: (t) => t.links.telegram,
    platform_referrer: (t) => t.platformReferrer,
    trading_since: (t) => t.tradingSince?.getTime() ?? null,
    creator_splits: (t) => splitsJson(t.creatorSplits),
    vesting: (t) => vestingJson(t.vesting),
    vesting_released: exactInt((t) => t.vesting?.released ?? null),
    vesting_releases: (t) => t.vesting?.releases ?? null,
    vesting_next_at: (t) => t.vesting?.nextReleaseAtMs ?? null,
  },
  (r) => {
    // The launch fee lives beside the curve parameters in the same JSON (fixed at creation with them).
    const p = JSON.parse(String(r.params)) as Record<keyof CurveParams, string> & { launchFeeStartBps?: string; launchFeeMs?: string; launchMode?: 'fair'; feeMode?: 'cashback' };
    return {
      tokenId: String(r.token_id),
      network: r.network as Token['network'],
      name: String(r.name),
      symbol: String(r.symbol),
      description: (r.description as string | null) ?? null,
      imageUrl: (r.image_url as string | null) ?? null,
      thumbnailUrl: (r.thumbnail_url as string | null) ?? null,
      creator: String(r.creator),
      links: { website: (r.website as string | null) ?? null, twitter: (r.twitter as string | null) ?? null, telegram: (r.telegram as string | null) ?? null },
      platformReferrer: (r.platform_referrer as string | null) ?? null,
      launchFee: p.launchFeeStartBps === undefined || p.launchFeeMs === undefined ? null : { startBps: BigInt(p.launchFeeStartBps), decayMs: BigInt(p.launchFeeMs) },
      state: r.state as Token['state'],
      launchMode: p.launchMode ?? 'curve',
      feeMode: p.feeMode ?? 'creator',
      creatorSplits: r.creator_splits === null || r.creator_splits === undefined ? null : (JSON.parse(String(r.creator_splits)) as CreatorSplit[]),
      vesting: vestingOfRow(r),
      tradingSince: r.trading_since === null || r.trading_since === undefined ? null : ms(r.trading_since),
      params: {
        totalSupply: BigInt(p.totalSupply),
        curveSupply: BigInt(p.curveSupply),
        initialVirtualUsd: BigInt(p.initialVirtualUsd),
        initialVirtualTokens: BigInt(p.initialVirtualTokens),
        feeBps: BigInt(p.feeBps),
      },
      curve: { virtualUsd: big(r.virtual_usd), virtualTokens: big(r.virtual_tokens), tokensSold: big(r.tokens_sold) },
      createdAt: ms(r.created_at),
      graduatedAt: r.graduated_at === null || r.graduated_at === undefined ? null : ms(r.graduated_at),
      address: (r.address as string | null) ?? null,
      deployment: {
        state: r.deployment_state as Token['deployment']['state'],
        txHash: (r.deployment_tx as string | null) ?? null,
        blockNumber: r.deployment_block === null || r.deployment_block === undefined ? null : big(r.deployment_block),
      },
      pool:
        r.pool_state === null || r.pool_state === undefined
          ? null
          : {
              dex: 'uniswap-v2',
              state: r.pool_state as NonNullable<Token['pool']>['state'],
              address: (r.pool_address as string | null) ?? null,
              txHash: (r.pool_tx as string | null) ?? null,
            },
    };
  },
);
/** What a trade, a deployment or a graduation changes. */
const UPDATED = ['state', 'trading_since', 'virtual_usd', 'virtual_tokens', 'tokens_sold', 'market_cap_key', 'graduated_at', 'address', 'deployment_state', 'deployment_tx', 'deployment_block', 'pool_state', 'pool_address', 'pool_tx'];
const UPDATE = `${TOKENS.update(UPDATED)} where token_id = ? returning token_id`;
/** What a vesting's start and its releases change: never a trade (a trade's update leaves them be). */
const VESTED = ['vesting', 'vesting_released', 'vesting_releases', 'vesting_next_at'];

export class MikroOrmTokenRepository implements TokenRepository {
  constructor(
    private readonly sql: Sql,
    private readonly prefetched?: PrefetchedPositions,
  ) {}

  async insert(t: Token): Promise<void> {
    await this.sql.all(TOKENS.insert, TOKENS.values(t));
  }

  async get(tokenId: string): Promise<Token | null> {
    const r = await this.sql.one(`select ${TOKENS.select(this.sql)} from tokens where token_id = ?`, [tokenId]);
    return r ? TOKENS.fromRow(r) : null;
  }

  async getForUpdate(tokenId: string, positionOf?: string): Promise<Token | null> {
    if (positionOf !== undefined && this.prefetched && this.sql.dialect === 'sqlite') return this.withPosition(tokenId, positionOf, this.prefetched);
    // PostgreSQL: a row lock until the transaction ends. SQLite: the transaction already holds
    // the database write lock (taken when it began), which serialises writers.
    const lock = this.sql.dialect === 'postgresql' ? ' for update' : '';
    const r = await this.sql.one(`select ${TOKENS.select(this.sql)} from tokens where token_id = ?${lock}`, [tokenId]);
    return r ? TOKENS.fromRow(r) : null;
  }

  /**
   * SQLite: the token and `wallet`'s position on it in one statement, the position kept for this
   * unit's `positions.get`. The transaction holds the write lock since it began, so nothing can
   * change either between this read and the unit's writes. (Not on PostgreSQL: a statement that
   * waited for the token's row lock would still read the position as it stood before the wait.)
   */
  private async withPosition(tokenId: string, wallet: string, prefetched: PrefetchedPositions): Promise<Token | null> {
    const r = await this.sql.one(
      `select ${TOKENS.select(this.sql, 't.')}, ${positionColumns(this.sql, 'p.')} from tokens t ` +
        `left join positions p on p.network = t.network and p.wallet_lower = ? and p.token_id = t.token_id where t.token_id = ?`,
      [wallet.toLowerCase(), tokenId],
    );
    if (!r) return null;
    const token = TOKENS.fromRow(r);
    prefetched.put(token.network, wallet, tokenId, positionOfRow(r));
    return token;
  }

  async update(t: Token): Promise<void> {
    await this.sql.write(UPDATE, [...TOKENS.valuesOf(UPDATED, t), t.tokenId], {
      key: `tokens:${t.tokenId}`,
      check: exactlyOne(() => new Error(`unknown token ${t.tokenId}`)),
    });
  }

  async setImage(tokenId: string, image: TokenImageUrls): Promise<void> {
    const rows = await this.sql.all(`update tokens set image_url = ?, thumbnail_url = ? where token_id = ? returning token_id`, [image.imageUrl, image.thumbnailUrl, tokenId]);
    if (rows.length !== 1) throw new Error(`unknown token ${tokenId}`);
  }

  async setCreatorSplits(tokenId: string, splits: readonly CreatorSplit[] | null): Promise<void> {
    await this.sql.write(`update tokens set creator_splits = ? where token_id = ? returning token_id`, [splitsJson(splits), tokenId], {
      key: `tokens:${tokenId}`,
      check: exactlyOne(() => new Error(`unknown token ${tokenId}`)),
    });
  }

  async startVesting(tokenId: string, vesting: DevVesting): Promise<void> {
    await this.sql.write(`${TOKENS.update(VESTED)} where token_id = ? and vesting is null returning token_id`, [...TOKENS.valuesOf(VESTED, { vesting } as Token), tokenId], {
      key: `tokens:${tokenId}`,
      check: exactlyOne(() => new Error(`token ${tokenId} is unknown or vests already`)),
    });
  }

  async releaseVesting(tokenId: string, next: DevVesting, fromReleases: number): Promise<boolean> {
    const rows = await this.sql.all(`${TOKENS.update(VESTED)} where token_id = ? and vesting_releases = ? returning token_id`, [
      ...TOKENS.valuesOf(VESTED, { vesting: next } as Token),
      tokenId,
      fromReleases,
    ]);
    return rows.length === 1;
  }

  async dueVestings(now: Date, limit: number): Promise<Token[]> {
    const rows = await this.sql.all(`select ${TOKENS.select(this.sql)} from tokens where vesting_next_at <= ? order by vesting_next_at, token_id limit ?`, [now.getTime(), limit]);
    return rows.map(TOKENS.fromRow);
  }

  async listWithoutAddress(limit: number): Promise<Token[]> {
    const rows = await this.sql.all(`select ${TOKENS.select(this.sql)} from tokens where address is null order by created_at, token_id limit ?`, [limit]);
    return rows.map(TOKENS.fromRow);
  }

  async listOnChain(network: Network): Promise<OnChainTokenRef[]> {
    const rows = await this.sql.all(
      `select token_id, address, ${this.sql.columns(['deployment_block'], ['deployment_block'])}, deployment_state, pool_address
       from tokens where network = ? and address is not null order by token_id`,
      [network],
    );
    return rows.map((r) => ({
      tokenId: String(r.token_id),
      address: String(r.address),
      deployedBlock: r.deployment_block === null || r.deployment_block === undefined ? null : big(r.deployment_block),
      deployed: r.deployment_state === 'DEPLOYED',
      pair: (r.pool_address as string | null) ?? null,
    }));
  }

  async findByAddress(address: string): Promise<{ tokenId: string; network: Network; what: 'token' | 'pair' } | null> {
    const a = address.toLowerCase();
    const r = await this.sql.one(`select token_id, network, lower(address) as a from tokens where lower(address) = ? or lower(pool_address) = ? limit 1`, [a, a]);
    return r ? { tokenId: String(r.token_id), network: r.network as Network, what: r.a === a ? 'token' : 'pair' } : null;
  }

  async list(query: TokenListQuery): Promise<Page<Token>> {
    const after = query.cursor ? decodeCursor(query.cursor, ['k', 'id'] as const) : null;
    const where: string[] = [];
    const params: unknown[] = [];
    const key =
      query.sort === 'created'
        ? this.sql.padded('t.created_at')
        : query.sort === 'marketCap'
          ? 't.market_cap_key'
          : this.sql.padded('coalesce(v.vol, 0)');
    const from =
      query.sort === 'volume24h'
        ? `tokens t left join (select token_id, ${this.sql.sum('usd_amount')} as vol from trades where created_at >= ? group by token_id) v
           on v.token_id = t.token_id`
        : 'tokens t';
    if (query.sort === 'volume24h') params.push(query.since.getTime());
    if (query.network) {
      where.push('t.network = ?');
      params.push(query.network);
    }
    if (query.state) {
      where.push('t.state = ?');
      params.push(query.state);
    }
    if (query.creator) {
      where.push('t.creator_lower = ?');
      params.push(query.creator.toLowerCase());
    }
    if (query.q) {
      const prefix = `${query.q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      where.push(`(t.name_lower like ? escape '\\' or t.symbol_lower like ? escape '\\')`);
      params.push(prefix, prefix);
    }
    if (after) {
      where.push(`(${key} < ? or (${key} = ? and t.token_id < ?))`);
      params.push(after.k, after.k, after.id);
    }
    const cols = TOKENS.select(this.sql, 't.');
    const rows = await this.sql.all(
      `select ${cols}, ${key} as sort_key from ${from}
       ${where.length ? `where ${where.join(' and ')}` : ''}
       order by sort_key desc, t.token_id desc limit ?`,
      [...params, query.limit + 1],
    );
    const items = rows.slice(0, query.limit);
    const last = items[items.length - 1];
    return {
      items: items.map(TOKENS.fromRow),
      nextCursor: rows.length > query.limit && last ? encodeCursor({ k: String(last.sort_key), id: String(last.token_id) }) : null,
    };
  }
}
