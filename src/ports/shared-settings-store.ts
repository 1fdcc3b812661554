/**
 * What every process on one database must agree on (docs/decisions/0032): the factories, custody,
 * the LaunchToken bytecode, pay-to addresses, the chains. Each setting is kept under the name an
 * operator sets it by (`LAUNCH_FACTORY_8453`), with the value the first process recorded.
 */
export interface SharedSetting {
  readonly name: string;
  readonly value: string;
}

export interface SharedSettingsStore {
  /** Every recorded setting. */
  list(): Promise<SharedSetting[]>;
  /**
   * Records `setting` unless one of that name is recorded already (atomic: of two processes
   * starting at once one wins); returns the one that stands.
   */
  propose(setting: SharedSetting, now: Date): Promise<SharedSetting>;
  /** Replaces the recorded value: an operator's deliberate change. */
  overwrite(setting: SharedSetting, now: Date): Promise<void>;
}
