/**
 * Token images (docs/decisions/0049): a table of images named by the sha256 of their bytes, kept
 * in the database so every process of a scale-out serves them, and each token's thumbnail URL
 * beside its image URL (null for every token before this version, and for an image named by URL).
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0018TokenImages extends Migration {
  override async up(): Promise<void> {
    const pg = this.driver.constructor.name === 'PostgreSqlDriver';
    for (const sql of [
      `create table images (
        sha256 text primary key,
        content_type text not null,
        bytes ${pg ? 'bytea' : 'blob'} not null,
        width integer not null,
        height integer not null,
        created_at ${pg ? 'bigint' : 'integer'} not null
      )`,
      `alter table tokens add column thumbnail_url text`,
    ]) {
      this.addSql(sql);
    }
  }
}
