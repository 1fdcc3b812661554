/**
 * A token's links (a site, an X handle, a Telegram username) and the platform referrer named at
 * its creation, who earns a share of its fees (docs/api.md "Fees and earnings"). Tokens from
 * before have none.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0012TokenLinksAndReferrer extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table tokens add column website text`);
    this.addSql(`alter table tokens add column twitter text`);
    this.addSql(`alter table tokens add column telegram text`);
    this.addSql(`alter table tokens add column platform_referrer text`);
  }
}
