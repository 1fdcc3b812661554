/**
 * `npm test`'s first step: PostgreSQL and Redis answer, or one line says which does not — in a
 * second, before lint and the type check (test/support/service-check.ts, shared with vitest).
 */
import { servicesProblem } from '../test/support/service-check.js';

const problem = await servicesProblem();
if (problem !== null) {
  process.stderr.write(`${problem}\n`);
  process.exitCode = 1;
}
