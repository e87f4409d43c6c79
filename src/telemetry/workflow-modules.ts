import * as path from 'node:path';

/**
 * The workflow interceptor modules telemetry adds to the workflow bundle: tracing's (Temporal's
 * OpenTelemetry interceptors and waveloop's GenAI spans) and the run metrics'. `createWorker`
 * bundles them when it bundles the workflows itself. A worker given a pre-built bundle gets what
 * the bundle was built with, so build it for the telemetry the worker has:
 *
 * ```ts
 * bundleWorkflowCode({ workflowsPath, workflowInterceptorModules: telemetryWorkflowModules({ tracing: true, metrics: true }) })
 * ```
 *
 * A bundle with tracing's module also serves a worker without tracing (its spans are dropped); a
 * bundle without it gives a traced worker's runs activity spans only.
 */
export function telemetryWorkflowModules(on: { tracing?: boolean; metrics?: boolean }): string[] {
  // Without an extension: the bundler finds the .js beside the built package and the .ts in the sources.
  const workflow = path.join(__dirname, 'workflow');
  return [
    ...(on.tracing ? [path.join(workflow, 'tracing-interceptors')] : []),
    ...(on.metrics ? [path.join(workflow, 'metrics-interceptors')] : []),
  ];
}
