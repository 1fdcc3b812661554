import { defineConfig } from 'vitest/config';

// `vitest run --mode no-services` (npm run test:no-services): the tests that need PostgreSQL or
// Redis are skipped (test/support/services.ts), and the global setup does not look for them.
export default defineConfig(({ mode }) => ({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: ['test/support/global-setup.ts'],
    env: mode === 'no-services' ? { TEST_SERVICES: 'none' } : {},
  },
}));
