import { ServiceUnavailable } from '../../../domain/errors.js';

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  '57P01', // admin shutdown
  '57P02', // crash shutdown
  '57P03', // cannot connect now
  '53300', // too many connections
]);

/** A database that cannot answer is a 503 with Retry-After, not an internal error. */
export function asUnavailable(e: unknown): unknown {
  const err = e as { code?: string; name?: string } | null;
  // better-sqlite3 names the extended codes too (SQLITE_BUSY_SNAPSHOT, SQLITE_LOCKED_SHAREDCACHE).
  const code = err?.code?.replace(/^(SQLITE_(?:BUSY|LOCKED))_.*$/, '$1') ?? '';
  if (err && (UNAVAILABLE_CODES.has(code) || err.name === 'KnexTimeoutError')) {
    // The driver's error stays as the cause: the 503 is logged with ECONNREFUSED or SQLITE_BUSY.
    return new ServiceUnavailable('The database is unavailable; try again shortly.', 5, undefined, { cause: e });
  }
  return e;
}
