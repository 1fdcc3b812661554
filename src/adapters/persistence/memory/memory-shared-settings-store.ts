/** The settings every process must agree on, in memory (one process: it always agrees with itself). */
import type { SharedSetting, SharedSettingsStore } from '../../../ports/shared-settings-store.js';
import type { MemoryDatabase, MemoryTx } from './memory-database.js';

export class MemorySharedSettingsStore implements SharedSettingsStore {
  constructor(
    private readonly db: MemoryDatabase,
    private readonly tx: MemoryTx | null,
  ) {}

  async list(): Promise<SharedSetting[]> {
    return [...this.db.sharedSettings.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  async propose(setting: SharedSetting): Promise<SharedSetting> {
    const recorded = this.db.sharedSettings.get(setting.name);
    if (recorded) return recorded;
    this.db.set(this.tx, this.db.sharedSettings, setting.name, { name: setting.name, value: setting.value });
    return setting;
  }

  async overwrite(setting: SharedSetting): Promise<void> {
    this.db.set(this.tx, this.db.sharedSettings, setting.name, { name: setting.name, value: setting.value });
  }
}
