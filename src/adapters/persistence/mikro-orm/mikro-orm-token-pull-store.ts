import { isNotSent } from '../../../ports/custody-transaction-store.js';
import type { TokenPull, TokenPullStore } from '../../../ports/token-pull-store.js';
import { MikroOrmCustodyTransactionStore } from './mikro-orm-custody-transaction-store.js';
import type { Sql } from './sql.js';

export class MikroOrmTokenPullStore extends MikroOrmCustodyTransactionStore<TokenPull> implements TokenPullStore {
  constructor(sql: Sql) {
    super(sql, 'token_pulls');
  }

  async byTransaction(network: string, txHash: string): Promise<TokenPull | null> {
    // Hashes are stored as the signer wrote them (lower-case hex); compared in one case. A
    // refusal's empty hash is no hash.
    const pull = txHash ? await this.one('network = ? and tx_hash = ?', [network, txHash.toLowerCase()]) : null;
    return pull && !isNotSent(pull) ? pull : null;
  }
}
