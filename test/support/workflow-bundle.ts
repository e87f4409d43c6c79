import * as path from 'node:path';
import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { QUIET_BUNDLER_LOGGER } from '../../src/worker/bundle-cache';

/**
 * Bundles the workflow code (`src/workflows`) as a worker would, quietly: only the bundler's
 * errors are printed. `failureConverterPath`: the failure converter of encrypted runs, as
 * `createWorker` bundles it when given a key. `workflowInterceptorModules`: telemetry's, as
 * `createWorker` bundles them when traces or metrics are on (`telemetryWorkflowModules`).
 */
export function buildWorkflowBundle(
  failureConverterPath?: string,
  workflowInterceptorModules?: string[],
): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({
    workflowsPath: path.join(__dirname, '..', '..', 'src', 'workflows', 'index.ts'),
    failureConverterPath,
    workflowInterceptorModules,
    logger: QUIET_BUNDLER_LOGGER,
  });
}
