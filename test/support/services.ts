/**
 * Whether this run has the machine's PostgreSQL and Redis (README "Tests"). `npm test` needs both;
 * `npm run test:no-services` (vitest's mode `no-services`, which sets TEST_SERVICES=none) runs
 * everything else, and the cases that need them are reported as skipped.
 */
import { describe, it } from 'vitest';

export const WITH_SERVICES = process.env.TEST_SERVICES !== 'none';

/** A suite or case that needs PostgreSQL or Redis. */
export const describeWithServices = describe.skipIf(!WITH_SERVICES);
export const itWithServices = it.skipIf(!WITH_SERVICES);

/** `[name, …]` cases for `describe.each`, without the PostgreSQL ones when the run has no services. */
export function withoutServices<T extends readonly [string, ...unknown[]]>(cases: T[]): T[] {
  return WITH_SERVICES ? cases : cases.filter(([name]) => !/postgres/i.test(name));
}
