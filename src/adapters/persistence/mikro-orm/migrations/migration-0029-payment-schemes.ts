/**
 * Each payment keeps the x402 scheme it came by (decision 0082): the reconciler asks the chain
 * about an `upto` payment's Permit2 nonce, not an EIP-3009 authorization's. Rows from before are
 * `exact` (batch-settlement vouchers never wait on the chain).
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0029PaymentSchemes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table payments add column scheme text not null default 'exact'`);
  }
}
