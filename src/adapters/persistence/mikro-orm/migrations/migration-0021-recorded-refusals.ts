/**
 * A refusal recorded in a custody transaction's place (docs/decisions/0059) keeps what it said —
 * its error code, message and details (docs/decisions/0063) — so a later copy of the operation
 * that finds it answers the same refusal, not a generic one. JSON text; null for a refund's
 * record, for a transaction, and for refusals recorded before this version.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0021RecordedRefusals extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table token_pulls add column refusal text');
    this.addSql('alter table pool_swaps add column refusal text');
  }
}
