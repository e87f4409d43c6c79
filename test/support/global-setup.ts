import type { TestProject } from 'vitest/node';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { findTemporalBinary } from '../../src/client/temporal-cli';
import { WAVELOOP_SEARCH_ATTRIBUTES } from '../../src/common/search-attributes';
import { START_DEV_DYNAMIC_CONFIG_FLAGS } from '../../src/common/server-tuning';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
  }
}

/**
 * Starts one real Temporal dev server (the pinned Temporal CLI, `temporal server start-dev`) for
 * the whole test run; every test file connects to it and uses task queues of its own.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const binary = findTemporalBinary();
  if (!binary) {
    throw new Error('The Temporal CLI is not installed: run `npm install` (scripts/install-temporal.js) or set WAVELOOP_TEMPORAL_BIN.');
  }
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: binary },
      searchAttributes: WAVELOOP_SEARCH_ATTRIBUTES,
      extraArgs: START_DEV_DYNAMIC_CONFIG_FLAGS,
    },
  });
  project.provide('temporalAddress', env.address);
  return async () => {
    await env.teardown();
  };
}
