import { defineConfig } from 'vitest/config';

/**
 * `npm run test:cluster` (test/cluster/run.ts): the cluster test, against the PostgreSQL-backed
 * Temporal server run.ts started (no global setup; the server's address comes from the environment).
 */
export default defineConfig({
  test: {
    include: ['test/cluster/**/*.cluster.ts'],
    // After every test, every fake model started checks itself (unused replies, extra calls, errors).
    setupFiles: ['test/support/fake-model-checks.ts'],
    testTimeout: 300_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
