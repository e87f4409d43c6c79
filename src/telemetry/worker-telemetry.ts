import type { Client } from '@temporalio/client';
import type { OpenTelemetrySinks } from '@temporalio/interceptors-opentelemetry';
import { Runtime, type ActivityInterceptorsFactory, type InjectedSinks, type Worker } from '@temporalio/worker';
import type { ModelPrice } from '../contract/model/pricing';
import { activityMetrics } from './activity-metrics';
import { watchApprovals } from './approvals-gauge';
import { installMetricsRuntimeFromEnv, runtimeExportsMetrics } from './metrics-runtime';
import type { Tracing } from './tracing';
import { tracingFromEnv, type TracingOptions } from './tracing-config';
import { telemetryWorkflowModules } from './workflow-modules';

export interface WorkerTelemetryOptions {
  /** Traces: these options, `false` for none, or (undefined) what the OpenTelemetry variables say. */
  tracing?: TracingOptions | false;
  /** waveloop's metrics: default on when the runtime exports metrics (`WAVELOOP_METRICS_ADDRESS`). */
  metrics?: boolean;
  modelPrices?: Readonly<Record<string, ModelPrice>>;
  /** What the gauge of runs waiting for approval counts with. */
  client: Client;
  namespace: string;
  taskQueue: string;
  searchAttributes: () => Promise<boolean>;
}

/** What a worker adds for traces and metrics: worker options, workflow modules, and what runs beside it. */
export interface WorkerTelemetry {
  tracing: boolean;
  metrics: boolean;
  interceptors: { activity: ActivityInterceptorsFactory[] };
  sinks: InjectedSinks<OpenTelemetrySinks>;
  /** For the workflow bundle, when the worker builds it (`telemetryWorkflowModules`). */
  workflowModules: string[];
  /** Makes `worker.run()` count the runs waiting for approval while it runs, and send the last spans when it stops. */
  attach(worker: Worker): Worker;
}

/** How long a stopping worker waits for its last spans to be sent. */
const FLUSH_TIMEOUT_MS = 5_000;

/**
 * A worker's telemetry. Traces: Temporal's activity interceptors with the worker's tracer, and the
 * sink that exports its workflows' spans (with tracing off, a sink that drops them, so a bundle
 * built with tracing's module still runs). Metrics: the activity interceptor of model and tool
 * metrics, the run metrics' workflow module, and the gauge of runs waiting for approval. With both
 * off, the worker runs exactly as without telemetry: no interceptor, no workflow module, and the
 * OpenTelemetry SDK and its exporters are not even loaded (about 0.2 s of CPU at a worker's start).
 */
export async function workerTelemetry(options: WorkerTelemetryOptions): Promise<WorkerTelemetry> {
  const traced = await tracedWith(options.tracing === false ? undefined : (options.tracing ?? tracingFromEnv()));
  installMetricsRuntimeFromEnv();
  const metrics = options.metrics ?? runtimeExportsMetrics();
  return {
    tracing: traced !== undefined,
    metrics,
    interceptors: {
      activity: [
        ...(traced ? [tracedActivities(traced)] : []),
        ...(metrics ? [activityMetrics(options.modelPrices)] : []),
      ],
    },
    sinks: {
      exporter: traced
        ? traced.otel.makeWorkflowExporter(traced.tracing.spanProcessor, traced.tracing.resource)
        : { export: { fn: () => undefined } },
    },
    workflowModules: telemetryWorkflowModules({ tracing: traced !== undefined, metrics }),
    attach(worker) {
      if (!traced && !metrics) return worker;
      const run = worker.run.bind(worker);
      worker.run = async () => {
        const approvals = metrics ? watchApprovals({ ...options, meter: Runtime.instance().metricMeter }) : undefined;
        try {
          await run();
        } finally {
          approvals?.stop();
          if (traced) await flushed(traced.tracing);
        }
      };
      return worker;
    },
  };
}

/** Temporal's OpenTelemetry interceptors and the worker's tracer, loaded only when traces are exported. */
interface Traced {
  otel: typeof import('@temporalio/interceptors-opentelemetry');
  tracing: Tracing;
}

async function tracedWith(options: TracingOptions | undefined): Promise<Traced | undefined> {
  if (!options) return undefined;
  const [{ startTracing }, otel] = await Promise.all([
    import('./tracing'),
    import('@temporalio/interceptors-opentelemetry'),
  ]);
  return { otel, tracing: startTracing(options) };
}

/** Temporal's activity interceptors: each attempt a `RunActivity` span under the workflow's `StartActivity`. */
function tracedActivities({ otel, tracing: { tracer } }: Traced): ActivityInterceptorsFactory {
  return (ctx) => ({
    inbound: new otel.OpenTelemetryActivityInboundInterceptor(ctx, { tracer }),
    outbound: new otel.OpenTelemetryActivityOutboundInterceptor(ctx),
  });
}

async function flushed(tracing: Tracing): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([tracing.shutdown(), new Promise((resolve) => (timer = setTimeout(resolve, FLUSH_TIMEOUT_MS)))]);
  } catch {
    // The collector could not be reached: the spans are lost, the worker stops all the same.
  } finally {
    clearTimeout(timer);
  }
}
