import * as path from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * About how long the slowest test files take (seconds, five at a time on a 2-core machine). Only
 * their order matters: on a machine without vitest's cache of earlier runs (CI's fresh clone) these
 * start first, so no long file starts last and runs alone at the end.
 */
const SLOW_FILES: Record<string, number> = {
  'test/e2e/package-install.test.ts': 180,
  'test/e2e/audit.test.ts': 88,
  'test/e2e/unknown-outcomes.test.ts': 80,
  'test/e2e/cli.test.ts': 69,
  'test/e2e/continue-as-new.test.ts': 69,
  'test/e2e/evals.test.ts': 59,
  'test/e2e/agents-as-tools.test.ts': 58,
  'test/e2e/effects.test.ts': 51,
  'test/e2e/temporal-connections.test.ts': 50,
  'test/e2e/undo.test.ts': 49,
  'test/e2e/cli-workers.test.ts': 48,
  'test/e2e/sensitive-arguments.test.ts': 45,
  'test/e2e/undo-approvals.test.ts': 41,
  'test/e2e/model-rate-limit.test.ts': 41,
  'test/e2e/webhooks.test.ts': 40,
  'test/e2e/tool-retries.test.ts': 37,
  'test/e2e/deployment-versioning.test.ts': 34,
  'test/e2e/serve-api.test.ts': 34,
  'test/e2e/traces.test.ts': 34,
  'test/e2e/run-limits.test.ts': 34,
  'test/e2e/who-decides.test.ts': 33,
};

/** Longest first: by the duration vitest recorded in an earlier run, or else by `SLOW_FILES`. */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = (file: TestSpecification) => {
      const relative = path.relative(this.ctx.config.root, file.moduleId).split(path.sep).join('/');
      const cached = this.ctx.cache.getFileTestResults(`${file.project.name}:${relative}`)?.duration;
      return cached !== undefined ? cached / 1000 : (SLOW_FILES[relative] ?? 0);
    };
    return [...files].sort((a, b) => seconds(b) - seconds(a));
  }
}

/**
 * Test files that `npm test` runs after the rest, on their own (`scripts/test.js`,
 * docs/development.md#a-native-abort); `vitest run` alone runs them with the others.
 */
const OWN_PROCESS = ['test/e2e/large-payloads.test.ts'];

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    // After every test, every fake model started checks itself (unused replies, extra calls, errors).
    setupFiles: ['test/support/fake-model-checks.ts'],
    // A guard against a test that hangs, not a measure of speed: under a loaded 2-core machine the
    // longest tests (many CLI processes, worker kills) have taken 55 s.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Processes, not threads: Temporal's native runtime is one per process.
    pool: 'forks',
    // Five test files at a time on two cores: much of a file's time is waiting (on timers, heartbeat
    // and sticky-queue timeouts, slow fake replies, child processes), which more files fill. Measured
    // on the 2-core machine with 122 files: 242 s for npm test with 4 (twice), 228 s with 5.
    maxWorkers: 5,
    // Files one after another in each of the five processes: a process's first file pays for
    // loading the Temporal SDK, vite's module runner and our sources (about 3 s of CPU), the files
    // after it do not. Measured on the 2-core machine in one sitting: the suite took 833–989 s of
    // CPU against 1,222 s with a fresh process per file. The file that made Node abort in a workflow thread runs apart, in
    // processes of its own (`own-process` below, docs/development.md#a-native-abort).
    isolate: false,
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        extends: true,
        test: { name: 'suite', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...OWN_PROCESS] },
      },
      // Node has aborted in a workflow thread of this file ("async hook stack has become
      // corrupted") under a loaded machine, in a process of its own or not, never when it ran alone.
      { extends: true, test: { name: 'own-process', include: OWN_PROCESS, isolate: true } },
    ],
  },
});
