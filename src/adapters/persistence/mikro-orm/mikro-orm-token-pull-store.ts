import type { TokenPull, TokenPullStore } from '../../../ports/token-pull-store.js';
import { ms, type Row, type Sql } from './sql.js';

const rowToPull = (r: Row): TokenPull => ({
  paymentId: String(r.payment_id),
  network: String(r.network),
  tokenId: String(r.token_id),
  txHash: String(r.tx_hash),
  rawTx: String(r.raw_tx),
  createdAt: ms(r.created_at),
});

export class MikroOrmTokenPullStore implements TokenPullStore {
  constructor(private readonly sql: Sql) {}

  async record(p: TokenPull): Promise<TokenPull> {
    const inserted = await this.sql.all(
      `insert into token_pulls (payment_id, network, token_id, tx_hash, raw_tx, created_at) values (?, ?, ?, ?, ?, ?)
       on conflict (payment_id) do nothing returning payment_id`,
      [p.paymentId, p.network, p.tokenId, p.txHash, p.rawTx, p.createdAt.getTime()],
    );
    return inserted.length === 1 ? p : (await this.get(p.paymentId))!;
  }

  async get(paymentId: string): Promise<TokenPull | null> {
    const r = await this.sql.one(`select payment_id, network, token_id, tx_hash, raw_tx, created_at from token_pulls where payment_id = ?`, [paymentId]);
    return r ? rowToPull(r) : null;
  }

  async byTransaction(network: string, txHash: string): Promise<TokenPull | null> {
    // Hashes are stored as the signer wrote them (lower-case hex); compared in one case.
    const r = await this.sql.one(`select payment_id, network, token_id, tx_hash, raw_tx, created_at from token_pulls where network = ? and tx_hash = ?`, [
      network,
      txHash.toLowerCase(),
    ]);
    return r ? rowToPull(r) : null;
  }

  async replace(next: TokenPull, fromTxHash: string): Promise<boolean> {
    const rows = await this.sql.all(
      `update token_pulls set tx_hash = ?, raw_tx = ?, created_at = ? where payment_id = ? and tx_hash = ? returning payment_id`,
      [next.txHash, next.rawTx, next.createdAt.getTime(), next.paymentId, fromTxHash],
    );
    return rows.length === 1;
  }
}
