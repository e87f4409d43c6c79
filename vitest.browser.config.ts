import { defineConfig } from 'vitest/config';

/** `npm run test:browser`: the web inbox in a real Chromium (test/browser). */
export default defineConfig({
  test: {
    include: ['test/browser/**/*.browser.ts'],
    globalSetup: ['test/support/browser-setup.ts', 'test/support/global-setup.ts'],
    setupFiles: ['test/support/fake-model-checks.ts'],
    testTimeout: 90_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
