/** What every process on this database must agree on (migration 0014), by the setting's name. */
import type { SharedSetting, SharedSettingsStore } from '../../../ports/shared-settings-store.js';
import type { Sql } from './sql.js';

export class MikroOrmSharedSettingsStore implements SharedSettingsStore {
  constructor(private readonly sql: Sql) {}

  async list(): Promise<SharedSetting[]> {
    return (await this.sql.all('select name, value from shared_settings order by name')).map((r) => ({ name: String(r.name), value: String(r.value) }));
  }

  async propose(s: SharedSetting, now: Date): Promise<SharedSetting> {
    await this.sql.all('insert into shared_settings (name, value, set_at) values (?, ?, ?) on conflict (name) do nothing returning name', [s.name, s.value, now.getTime()]);
    const r = await this.sql.one('select name, value from shared_settings where name = ?', [s.name]);
    return { name: String(r!.name), value: String(r!.value) };
  }

  async overwrite(s: SharedSetting, now: Date): Promise<void> {
    await this.sql.all(
      'insert into shared_settings (name, value, set_at) values (?, ?, ?) on conflict (name) do update set value = excluded.value, set_at = excluded.set_at returning name',
      [s.name, s.value, now.getTime()],
    );
  }
}
