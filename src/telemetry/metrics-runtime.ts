import { noopMetricMeter } from '@temporalio/common';
import { Runtime, type RuntimeOptions, type TelemetryOptions } from '@temporalio/worker';
import { METRIC_BUCKETS } from './workflow/metric-names';

/**
 * Prometheus metrics through Temporal's runtime: the runtime serves `/metrics` at an address, with
 * the SDK's own metrics and whatever is emitted through its metric meter (waveloop's). A process
 * has one runtime, installed once, before any worker or native connection exists.
 */

/** Where `WAVELOOP_METRICS_ADDRESS` asks the worker to serve metrics (`host:port`), if it does. */
export function metricsAddressFromEnv(env: Record<string, string | undefined> = process.env): string | undefined {
  return env.WAVELOOP_METRICS_ADDRESS?.trim() || undefined;
}

/**
 * Runtime telemetry options that serve Prometheus metrics at `address` (`127.0.0.1:9464`, or
 * `0.0.0.0:9464` for a scraper on another host), with buckets that suit waveloop's histograms. For
 * an application that installs the runtime itself:
 * `Runtime.install({ telemetryOptions: prometheusTelemetry('0.0.0.0:9464') })`.
 */
export function prometheusTelemetry(address: string): TelemetryOptions {
  return { metrics: { prometheus: { bindAddress: address, histogramBucketOverrides: { ...METRIC_BUCKETS } } } };
}

/**
 * Installs the runtime with `options`, serving metrics at `metricsAddress` when given. When the
 * address cannot be bound (another process serves it), installs it without metrics and says so
 * through the runtime's logger rather than failing: the command still works.
 */
export function installRuntime(options: RuntimeOptions, metricsAddress: string | undefined): Runtime {
  if (!metricsAddress) return Runtime.install(options);
  try {
    return Runtime.install({
      ...options,
      telemetryOptions: { ...options.telemetryOptions, ...prometheusTelemetry(metricsAddress) },
    });
  } catch (err) {
    const runtime = Runtime.install(options);
    runtime.logger.warn(
      `Metrics are not served: WAVELOOP_METRICS_ADDRESS ${metricsAddress} could not be used (${(err as Error).message}).`,
    );
    return runtime;
  }
}

/**
 * For a worker when `WAVELOOP_METRICS_ADDRESS` is set and nothing has installed the runtime yet
 * (an application that builds its workers with `createWorker`): installs it with metrics. A runtime
 * already installed is left as it is.
 */
export function installMetricsRuntimeFromEnv(env: Record<string, string | undefined> = process.env): void {
  const address = metricsAddressFromEnv(env);
  if (address && !Runtime._instance) installRuntime({}, address);
}

/** Whether the process's runtime exports metrics (a worker then emits waveloop's). */
export function runtimeExportsMetrics(): boolean {
  return Runtime.instance().metricMeter !== noopMetricMeter;
}
