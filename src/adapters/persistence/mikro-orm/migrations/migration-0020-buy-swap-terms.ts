/**
 * A buy's pool swap records its terms (docs/decisions/0061): the gross USD its payment brought,
 * the USDC the swap was signed to swap (that gross less our fee) and the least tokens it accepts. The booking of a swap
 * custody recorded — by the request, or by the reconciler after the buy's quote or held price is
 * gone — takes its gross and its fee from the swap, exactly, without pricing the buy again. Null
 * for a sell's swap, and for swaps recorded before this version (booked from their plan, as then).
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0020BuySwapTerms extends Migration {
  override async up(): Promise<void> {
    const money = this.driver.constructor.name === 'PostgreSqlDriver' ? 'numeric(78,0)' : 'text';
    this.addSql(`alter table pool_swaps add column gross_usd ${money}`);
    this.addSql(`alter table pool_swaps add column amount_in ${money}`);
    this.addSql(`alter table pool_swaps add column min_tokens_out ${money}`);
  }
}
