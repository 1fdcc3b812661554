/**
 * What every process on one database must agree on (docs/decisions/0032): the LaunchFactory and
 * custody (together with the LaunchToken bytecode they fix every token's address), the pay-to
 * addresses, the Uniswap v2 deployment graduation pools live on, and which chain each RPC is.
 * The first process records each value; a later one that disagrees is refused at start, naming
 * every setting it disagrees on. An operator who means to change one for every process names it
 * in ACCEPT_SETTINGS_CHANGE: that process records its value instead.
 */
import type { Clock } from '../../ports/clock.js';
import type { Logger } from '../../ports/logger.js';
import type { SharedSetting } from '../../ports/shared-settings-store.js';
import type { UnitOfWork } from '../../ports/unit-of-work.js';

export interface Disagreement {
  name: string;
  here: string;
  recorded: string;
}

/** Records this process's settings where none is recorded, and returns those it disagrees on. */
export async function agreeOnSharedSettings(
  deps: { uow: UnitOfWork; clock: Clock; logger: Logger },
  settings: readonly SharedSetting[],
  accept: readonly string[],
): Promise<Disagreement[]> {
  const now = deps.clock.now();
  const disagreements: Disagreement[] = [];
  await deps.uow.transaction(async (stores) => {
    for (const setting of settings) {
      const recorded = await stores.sharedSettings.propose(setting, now);
      if (recorded.value === setting.value) continue;
      if (accept.includes(setting.name)) {
        await stores.sharedSettings.overwrite(setting, now);
        deps.logger.warn('a shared setting changed for every process (ACCEPT_SETTINGS_CHANGE)', { name: setting.name, from: recorded.value, to: setting.value });
        continue;
      }
      disagreements.push({ name: setting.name, here: setting.value, recorded: recorded.value });
    }
  });
  return disagreements;
}

/** The one line an operator reads when a process is refused. */
export function disagreementLine(disagreements: readonly Disagreement[]): string {
  const what = disagreements.map((d) => `${d.name} is ${d.here} here but ${d.recorded} for the processes before`).join('; ');
  const names = disagreements.map((d) => d.name).join(',');
  return `${what} — every process on this database must agree (docs/operations.md, "Scale-out"); to change it for all, stop them and start one with ACCEPT_SETTINGS_CHANGE=${names}`;
}
