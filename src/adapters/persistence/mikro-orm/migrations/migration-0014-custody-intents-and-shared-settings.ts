/**
 * Scale-out (docs/decisions/0031, 0032):
 * - `custody_intents`: a process that does not sign for custody asks the one that does to sign a
 *   payment's pull or swap; one row per kind and payment, deleted once answered. On PostgreSQL a
 *   trigger announces every ask on the `launchpad_custody` channel as the schema's name, so the
 *   signer wakes at once (it also looks on every worker pass).
 * - `shared_settings`: what every process on this database must agree on, by the setting's name.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0014CustodyIntentsAndSharedSettings extends Migration {
  override async up(): Promise<void> {
    const pg = this.driver.constructor.name === 'PostgreSqlDriver';
    const int64 = pg ? 'bigint' : 'integer';
    this.addSql(`create table custody_intents (
      kind text not null,
      payment_id text not null,
      network text not null,
      token_id text not null,
      request text not null,
      replaces text,
      requested_at ${int64} not null,
      primary key (kind, payment_id)
    )`);
    this.addSql(`create index custody_intents_asked on custody_intents (requested_at)`);
    this.addSql(`create table shared_settings (
      name text primary key,
      value text not null,
      set_at ${int64} not null
    )`);
    if (!pg) return;
    this.addSql(`create or replace function launchpad_custody_notify() returns trigger language plpgsql as $$
      begin
        perform pg_notify('launchpad_custody', TG_TABLE_SCHEMA);
        return null;
      end
    $$`);
    this.addSql(`create trigger custody_intents_notify after insert or update on custody_intents for each row execute function launchpad_custody_notify()`);
  }
}
