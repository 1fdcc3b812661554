/**
 * `npm test`'s install step for the x402 v1 clients' own package (test/v1-clients, decision
 * 0069), run before the type check (`pretypecheck`): `npm ci` there when its lockfile changed
 * since the last install, nothing otherwise.
 */
import { ensureV1Clients } from '../test/support/v1-clients.js';

try {
  ensureV1Clients();
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exitCode = 1;
}
