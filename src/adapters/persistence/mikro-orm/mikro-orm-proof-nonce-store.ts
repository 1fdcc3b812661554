import type { ProofNonceStore } from '../../../ports/proof-nonce-store.js';
import type { Sql } from './sql.js';

export class MikroOrmProofNonceStore implements ProofNonceStore {
  constructor(private readonly sql: Sql) {}

  async use(wallet: string, nonce: string, expiresAt: Date): Promise<boolean> {
    // The primary key decides: of concurrent uses of one proof exactly one inserts.
    const inserted = await this.sql.all(
      `insert into proof_nonces (wallet_lower, nonce, expires_at) values (?, ?, ?) on conflict (wallet_lower, nonce) do nothing returning nonce`,
      [wallet.toLowerCase(), nonce, expiresAt.getTime()],
    );
    return inserted.length === 1;
  }

  async purgeExpired(before: Date, limit: number): Promise<number> {
    const rows = await this.sql.all(
      `delete from proof_nonces where (wallet_lower, nonce) in
         (select wallet_lower, nonce from proof_nonces where expires_at < ? order by expires_at limit ?)
       returning nonce`,
      [before.getTime(), limit],
    );
    return rows.length;
  }
}
