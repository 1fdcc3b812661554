/**
 * Each payment keeps the absolute resource URL its 402 named, so the reconciler can sign the
 * receipt of a payment it finishes for the URL the request's own answer would have named (docs/api.md "x402 extensions").
 * Payments from before have none (null): they stay without a receipt.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0009PaymentResourceUrl extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table payments add column resource_url text`);
  }
}
