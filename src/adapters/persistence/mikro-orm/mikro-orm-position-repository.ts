import type { Network } from '../../../domain/network.js';
import type { Position } from '../../../domain/position.js';
import type { PositionRepository } from '../../../ports/position-repository.js';
import { pad } from '../kit/token-order.js';
import { big, num } from './exact-bigint-type.js';
import { ms, type Row, type Sql } from './sql.js';

const COLUMNS = ['network', 'wallet', 'token_id', 'balance', 'cost_basis_usd', 'realized_pnl_usd', 'prebooked_in', 'updated_at'];
const cols = (sql: Sql) => sql.columns(COLUMNS, ['balance', 'cost_basis_usd', 'realized_pnl_usd', 'prebooked_in']);

const rowToPosition = (r: Row): Position => ({
  network: r.network as Network,
  wallet: String(r.wallet),
  tokenId: String(r.token_id),
  balance: big(r.balance),
  costBasisUsd: big(r.cost_basis_usd),
  realizedPnlUsd: big(r.realized_pnl_usd),
  prebookedIn: big(r.prebooked_in),
  updatedAt: ms(r.updated_at),
});

export class MikroOrmPositionRepository implements PositionRepository {
  constructor(private readonly sql: Sql) {}

  async get(network: Network, wallet: string, tokenId: string): Promise<Position | null> {
    const r = await this.sql.one(`select ${cols(this.sql)} from positions where network = ? and wallet_lower = ? and token_id = ?`, [
      network,
      wallet.toLowerCase(),
      tokenId,
    ]);
    return r ? rowToPosition(r) : null;
  }

  async save(p: Position): Promise<void> {
    await this.sql.all(
      `insert into positions (network, wallet_lower, token_id, wallet, balance, balance_key, cost_basis_usd, realized_pnl_usd, prebooked_in, updated_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       on conflict (network, wallet_lower, token_id) do update set
         wallet = excluded.wallet, balance = excluded.balance, balance_key = excluded.balance_key,
         cost_basis_usd = excluded.cost_basis_usd, realized_pnl_usd = excluded.realized_pnl_usd,
         prebooked_in = excluded.prebooked_in, updated_at = excluded.updated_at`,
      [
        p.network, p.wallet.toLowerCase(), p.tokenId, p.wallet, num(p.balance), pad(p.balance), num(p.costBasisUsd), num(p.realizedPnlUsd),
        num(p.prebookedIn), p.updatedAt.getTime(),
      ],
    );
  }

  async listByWallet(network: Network, wallet: string): Promise<Position[]> {
    const rows = await this.sql.all(`select ${cols(this.sql)} from positions where network = ? and wallet_lower = ? order by token_id`, [
      network,
      wallet.toLowerCase(),
    ]);
    return rows.map(rowToPosition);
  }

  async holders(tokenId: string, limit: number): Promise<Position[]> {
    const rows = await this.sql.all(
      `select ${cols(this.sql)} from positions where token_id = ? and balance_key > ? order by balance_key desc, wallet_lower limit ?`,
      [tokenId, pad(0n), limit],
    );
    return rows.map(rowToPosition);
  }

  async countHolders(tokenId: string): Promise<number> {
    const r = await this.sql.one(`select count(*) as n from positions where token_id = ? and balance_key > ?`, [tokenId, pad(0n)]);
    return Number(r?.n ?? 0);
  }
}
