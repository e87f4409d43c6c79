import { defineConfig } from 'vitest/config';

/**
 * `npm run test:bench`: every benchmark scenario at tiny sizes (`BENCH_SMOKE=1`), to check that each
 * still runs (test/bench/*.smoke.ts). The bench starts its own Temporal server: no global setup.
 */
export default defineConfig({
  test: {
    include: ['test/bench/**/*.smoke.ts'],
    testTimeout: 600_000,
    hookTimeout: 600_000,
    pool: 'forks',
  },
});
