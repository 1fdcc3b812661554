/**
 * Before any test file: PostgreSQL and Redis must answer (README "Tests"). Without them the run
 * stops with one line saying what is missing and how to run the rest, instead of dozens of
 * ECONNREFUSED stack traces. `npm run test:no-services` skips this check and those tests.
 */
import type { TestProject } from 'vitest/node';
import { servicesProblem } from './service-check.js';

export default async function setup(project: TestProject): Promise<void> {
  if ((project.config.env?.TEST_SERVICES ?? process.env.TEST_SERVICES) === 'none') return;
  const problem = await servicesProblem();
  if (problem === null) return;
  // One line and out: a thrown error here would be printed with vitest's stack frames.
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
