/**
 * Which chain each network's books were kept on (docs/decisions/0066): its chain id, the hash of
 * its genesis block, and the LaunchFactory with the hash of its code, recorded by the first start
 * on the database and compared by every later one. Empty on a database from before this version:
 * its next start records what it finds.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0022ChainIdentities extends Migration {
  override async up(): Promise<void> {
    const pg = this.driver.constructor.name === 'PostgreSqlDriver';
    this.addSql(`create table chain_identities (
      network text primary key,
      chain_id ${pg ? 'bigint' : 'integer'} not null,
      genesis_hash text not null,
      factory text not null,
      factory_code_hash text,
      recorded_at ${pg ? 'bigint' : 'integer'} not null
    )`);
  }
}
