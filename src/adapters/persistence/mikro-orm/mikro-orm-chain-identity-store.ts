/** Which chain each network's books were kept on (migration 0022), by network. */
import type { ChainIdentity } from '../../../domain/chain-identity.js';
import type { Network } from '../../../domain/network.js';
import type { ChainIdentityStore } from '../../../ports/chain-identity-store.js';
import type { Row, Sql } from './sql.js';

const COLUMNS = 'network, chain_id, genesis_hash, factory, factory_code_hash';

const identityOf = (r: Row): ChainIdentity => ({
  network: String(r.network) as Network,
  chainId: Number(r.chain_id),
  genesisHash: String(r.genesis_hash),
  factory: String(r.factory),
  factoryCodeHash: r.factory_code_hash === null || r.factory_code_hash === undefined ? null : String(r.factory_code_hash),
});

const values = (i: ChainIdentity, now: Date) => [i.network, i.chainId, i.genesisHash, i.factory, i.factoryCodeHash, now.getTime()];

export class MikroOrmChainIdentityStore implements ChainIdentityStore {
  constructor(private readonly sql: Sql) {}

  async get(network: Network): Promise<ChainIdentity | null> {
    const r = await this.sql.one(`select ${COLUMNS} from chain_identities where network = ?`, [network]);
    return r ? identityOf(r) : null;
  }

  async propose(identity: ChainIdentity, now: Date): Promise<ChainIdentity> {
    await this.sql.all(
      `insert into chain_identities (${COLUMNS}, recorded_at) values (?, ?, ?, ?, ?, ?) on conflict (network) do nothing returning network`,
      values(identity, now),
    );
    return (await this.get(identity.network))!;
  }

  async overwrite(identity: ChainIdentity, now: Date): Promise<void> {
    await this.sql.all(
      `insert into chain_identities (${COLUMNS}, recorded_at) values (?, ?, ?, ?, ?, ?)
       on conflict (network) do update set chain_id = excluded.chain_id, genesis_hash = excluded.genesis_hash, factory = excluded.factory,
         factory_code_hash = excluded.factory_code_hash, recorded_at = excluded.recorded_at
       returning network`,
      values(identity, now),
    );
  }
}
