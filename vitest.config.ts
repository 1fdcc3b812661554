import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Files that intercept HTTP with nock: nock patches node:http and fetch for the process it is
 * loaded in, so these run in a fresh module graph each (isolated); every other file shares its
 * worker's modules with the files before it (docs/decisions/0053-test-run-shared-modules.md).
 */
const INTERCEPTING = ['test/**/*.nock.test.ts', 'test/adapters/network/network-detection.test.ts'];
/**
 * The x402 v1 clients' own package (decision 0069): its node_modules holds other projects' test
 * files. A project's `exclude` replaces vitest's default (which names node_modules), so both say it.
 */
const V1_CLIENTS = 'test/v1-clients/**';

// `vitest run --mode no-services` (npm run test:no-services): the tests that need PostgreSQL or
// Redis are skipped (test/support/services.ts), and the global setup does not look for them.
// The global setup runs once for the whole run, beside the projects: it reads the runner's own
// environment; the files get each project's `env`.
export default defineConfig(({ mode }) => {
  const env = mode === 'no-services' ? { TEST_SERVICES: 'none' } : {};
  Object.assign(process.env, env);
  return {
    test: {
      testTimeout: 30_000,
      hookTimeout: 60_000,
      pool: 'forks',
      // One file more than the cores: the devnet files spend much of their time waiting on the chain.
      maxWorkers: availableParallelism() + 1,
      globalSetup: ['test/support/global-setup.ts'],
      env,
      projects: [
        { extends: true, test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: [...INTERCEPTING, V1_CLIENTS], isolate: false } },
        { extends: true, test: { name: 'isolated', include: INTERCEPTING, exclude: [V1_CLIENTS], isolate: true } },
      ],
    },
  };
});
