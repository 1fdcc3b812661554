/**
 * Paid-for access that outlives its request (docs/api.md "Sign-In-With-X": `token_info` bought once is free to the same
 * wallet, proven by Sign-In-With-X, for INFO_ACCESS_SECONDS).
 */
export interface AccessGrantStore {
  /** Lets `wallet` use `resource` without paying until `until`; a grant only ever extends. */
  grant(wallet: string, resource: string, until: Date): Promise<void>;
  /** Until when `wallet` may use `resource` without paying, or null when that is not after `now`. */
  validUntil(wallet: string, resource: string, now: Date): Promise<Date | null>;
  /** Forgets up to `limit` grants that ended before `before`; returns how many. */
  purgeExpired(before: Date, limit: number): Promise<number>;
}
