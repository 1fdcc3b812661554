import type { Network } from '../../../domain/network.js';
import type { Position } from '../../../domain/position.js';
import type { PositionRepository } from '../../../ports/position-repository.js';
import { pad } from '../kit/token-order.js';
import { big } from './exact-bigint-type.js';
import { ms, type Row, type Sql } from './sql.js';
import { exactInt, Table, writeOnly } from './table.js';

const POSITIONS = new Table<Position>(
  'positions',
  {
    network: (p) => p.network,
    wallet_lower: writeOnly((p) => p.wallet.toLowerCase()),
    token_id: (p) => p.tokenId,
    wallet: (p) => p.wallet,
    balance: exactInt((p) => p.balance),
    balance_key: writeOnly((p) => pad(p.balance)),
    cost_basis_usd: exactInt((p) => p.costBasisUsd),
    realized_pnl_usd: exactInt((p) => p.realizedPnlUsd),
    prebooked_in: exactInt((p) => p.prebookedIn),
    updated_at: (p) => p.updatedAt.getTime(),
  },
  (r) => ({
    network: r.network as Network,
    wallet: String(r.wallet),
    tokenId: String(r.token_id),
    balance: big(r.balance),
    costBasisUsd: big(r.cost_basis_usd),
    realizedPnlUsd: big(r.realized_pnl_usd),
    prebookedIn: big(r.prebooked_in),
    updatedAt: ms(r.updated_at),
  }),
);
const SAVE = POSITIONS.upsert(['network', 'wallet_lower', 'token_id']);

/** The columns of a position read beside its token (`positionJoin`), each renamed `pos_<column>`. */
export const positionColumns = (sql: Sql, prefix: string) => POSITIONS.selectAs(sql, prefix, 'pos_');
export const positionOfRow = (r: Row) => POSITIONS.fromRowAs(r, 'pos_');

/**
 * Positions read beside their token's lock in this unit of work (SQLite: `getForUpdate` with
 * `positionOf`), each answered once by `get` with no statement of its own.
 */
export class PrefetchedPositions {
  private readonly read = new Map<string, Position | null>();
  static key = (network: string, wallet: string, tokenId: string) => `${network}|${wallet.toLowerCase()}|${tokenId}`;
  put(network: string, wallet: string, tokenId: string, position: Position | null): void {
    this.read.set(PrefetchedPositions.key(network, wallet, tokenId), position);
  }
  /** The prefetched position (null: none stored), or undefined when it was not prefetched; given once. */
  take(network: string, wallet: string, tokenId: string): Position | null | undefined {
    const key = PrefetchedPositions.key(network, wallet, tokenId);
    const found = this.read.get(key);
    this.read.delete(key);
    return found;
  }
}

export class MikroOrmPositionRepository implements PositionRepository {
  constructor(
    private readonly sql: Sql,
    private readonly prefetched?: PrefetchedPositions,
  ) {}

  async get(network: Network, wallet: string, tokenId: string): Promise<Position | null> {
    const prefetched = this.prefetched?.take(network, wallet, tokenId);
    if (prefetched !== undefined) return prefetched;
    const r = await this.sql.one(`select ${POSITIONS.select(this.sql)} from positions where network = ? and wallet_lower = ? and token_id = ?`, [
      network,
      wallet.toLowerCase(),
      tokenId,
    ]);
    return r ? POSITIONS.fromRow(r) : null;
  }

  async save(p: Position): Promise<void> {
    await this.sql.write(SAVE, POSITIONS.values(p), { key: `positions:${p.network}:${p.wallet.toLowerCase()}:${p.tokenId}` });
  }

  async listByWallet(network: Network, wallet: string): Promise<Position[]> {
    const rows = await this.sql.all(`select ${POSITIONS.select(this.sql)} from positions where network = ? and wallet_lower = ? order by token_id`, [
      network,
      wallet.toLowerCase(),
    ]);
    return rows.map(POSITIONS.fromRow);
  }

  async holders(tokenId: string, limit: number): Promise<Position[]> {
    const rows = await this.sql.all(
      `select ${POSITIONS.select(this.sql)} from positions where token_id = ? and balance_key > ? order by balance_key desc, wallet_lower limit ?`,
      [tokenId, pad(0n), limit],
    );
    return rows.map(POSITIONS.fromRow);
  }

  async countHolders(tokenId: string): Promise<number> {
    const r = await this.sql.one(`select count(*) as n from positions where token_id = ? and balance_key > ?`, [tokenId, pad(0n)]);
    return Number(r?.n ?? 0);
  }

  async ofWallets(tokenId: string, wallets: readonly string[]): Promise<Position[]> {
    const named = [...new Set(wallets.map((w) => w.toLowerCase()))];
    if (named.length === 0) return [];
    const rows = await this.sql.all(
      `select ${POSITIONS.select(this.sql)} from positions where token_id = ? and wallet_lower in (${named.map(() => '?').join(', ')})`,
      [tokenId, ...named],
    );
    return rows.map(POSITIONS.fromRow);
  }
}
