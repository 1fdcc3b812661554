/**
 * PostgreSQL: every committed event is announced on the `launchpad_events` channel as
 * "<schema> <token id>", so each process's change feed (postgres-change-feed.ts) can drop the
 * token's cached view (docs/performance.md). A trigger, so no writer — another process, a future code path, an
 * operator's insert — can append an event unannounced. SQLite has no channel between processes:
 * nothing to add.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0008EventNotifications extends Migration {
  override async up(): Promise<void> {
    if (this.driver.constructor.name !== 'PostgreSqlDriver') return;
    this.addSql(`create or replace function launchpad_event_notify() returns trigger language plpgsql as $$
      begin
        perform pg_notify('launchpad_events', TG_TABLE_SCHEMA || ' ' || coalesce(NEW.token_id, ''));
        return null;
      end
    $$`);
    this.addSql(`create trigger events_notify after insert on events for each row execute function launchpad_event_notify()`);
  }
}
