/**
 * Before any test file: the x402 v1 clients' own package is installed (test/v1-clients, decision
 * 0069; a no-op when its lockfile has not changed), and PostgreSQL and Redis must answer (README
 * "Tests"). Without them the run stops with one line saying what is missing and how to run the
 * rest, instead of dozens of ECONNREFUSED stack traces. `npm run test:no-services` skips the
 * services' check and those tests.
 */
import type { TestProject } from 'vitest/node';
import { servicesProblem } from './service-check.js';
import { ensureV1Clients } from './v1-clients.js';

export default async function setup(project: TestProject): Promise<void> {
  try {
    ensureV1Clients();
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(1);
  }
  if ((project.config.env?.TEST_SERVICES ?? process.env.TEST_SERVICES) === 'none') return;
  const problem = await servicesProblem();
  if (problem === null) return;
  // One line and out: a thrown error here would be printed with vitest's stack frames.
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
