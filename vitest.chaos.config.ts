import { defineConfig } from 'vitest/config';

/** `npm run test:chaos`: the crash matrix and the many-workers test, each on an embedded Temporal server of its own (no global setup). */
export default defineConfig({
  test: {
    include: ['test/chaos/**/*.chaos.ts'],
    // After every test, every fake model started checks itself (unused replies, extra calls, errors).
    setupFiles: ['test/support/fake-model-checks.ts'],
    testTimeout: 300_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Each file runs its own server and worker processes, and waits on their timeouts: one file at a time.
    fileParallelism: false,
  },
});
