/**
 * Comments on tokens (docs/api.md "Comments", docs/decisions/0050): one row per comment, its
 * reply target (a top-level comment of the same token, or null) and when the token's creator hid
 * it (null while shown). Listed newest first per token, replies per parent.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0019Comments extends Migration {
  override async up(): Promise<void> {
    const pg = this.driver.constructor.name === 'PostgreSqlDriver';
    const ts = pg ? 'bigint' : 'integer';
    this.addSql(`create table comments (
      comment_id text primary key,
      token_id text not null,
      network text not null,
      author text not null,
      text text not null,
      reply_to text,
      created_at ${ts} not null,
      hidden_at ${ts}
    )`);
    this.addSql(`create index comments_threads on comments (token_id, comment_id) where reply_to is null`);
    this.addSql(`create index comments_replies on comments (reply_to, comment_id) where reply_to is not null`);
  }
}
