import * as fs from 'node:fs';
import * as path from 'node:path';
import { cachedWorkflowBundle } from '../../src/worker/bundle-cache';

/**
 * Bundles the workflow code (`src/workflows`) as a worker would, through the workers' bundle cache
 * (`cachedWorkflowBundle`): built once per change of the sources and kept between test files and
 * runs. `failureConverterPath`: the failure converter of encrypted runs, as `createWorker` bundles
 * it when given a key. `workflowInterceptorModules`: telemetry's, as `createWorker` bundles them
 * when traces or metrics are on (`telemetryWorkflowModules`).
 */
export async function buildWorkflowBundle(
  failureConverterPath?: string,
  workflowInterceptorModules?: string[],
): Promise<{ code: string }> {
  const file = await cachedWorkflowBundle({
    workflowsPath: path.join(__dirname, '..', '..', 'src', 'workflows', 'index.ts'),
    failureConverterPath,
    workflowInterceptorModules,
  });
  return { code: await fs.promises.readFile(file, 'utf8') };
}
