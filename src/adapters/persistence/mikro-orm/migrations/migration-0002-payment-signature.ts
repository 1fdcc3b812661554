/** Payments remember which signed authorization paid them, so a replay must present the same one. */
import { Migration } from '@mikro-orm/migrations';

export class Migration0002PaymentSignature extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table payments add column signature_hash text not null default ''`);
  }
}
