export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

export interface RateLimiter {
  /** Counts one request for `key` and says whether it is within the budget. */
  consume(key: string): Promise<RateLimitDecision>;
  health(): Promise<'ok' | 'degraded'>;
  /** Lets go of what it holds (a connection); the service closes it once, when it stops. */
  close(): Promise<void>;
}
