import { context, propagation, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { envDetectorSync, Resource, type IResource } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ExportFilter } from './export-filter';
import { traceContentFromEnv, type TracingOptions } from './tracing-config';

/** A worker's trace pipeline: the tracer of its activities, what receives its workflows' spans, and its end. */
export interface Tracing {
  tracer: Tracer;
  /** Receives every span of the worker, its workflows' included, and sends it on after `ExportFilter`. */
  spanProcessor: SpanProcessor;
  resource: IResource;
  /** Sends the spans still buffered and stops the exporter. */
  shutdown(): Promise<void>;
}

/**
 * Starts a trace pipeline: spans are batched (`OTEL_BSP_*` tune the batches) and exported over
 * OTLP/HTTP, or handed to `options.spanProcessor`. The tracer provider is the worker's own, not
 * registered globally, so an application's own OpenTelemetry setup keeps its tracers. Temporal's
 * activity interceptor reads the trace from an activity's headers through the global propagator
 * and context manager: when the process has none (an application with its own setup has), the W3C
 * trace context propagator and an AsyncLocalStorage context manager are registered.
 */
export function startTracing(options: TracingOptions): Tracing {
  const exporting =
    options.spanProcessor ??
    new BatchSpanProcessor(
      options.protocol === 'http/json'
        ? new JsonTraceExporter({ url: options.url, headers: options.headers })
        : new ProtobufTraceExporter({ url: options.url, headers: options.headers }),
    );
  const spanProcessor = new ExportFilter(exporting, options.content ?? traceContentFromEnv());
  const resource = tracingResource(options);
  const provider = new BasicTracerProvider({ resource, spanProcessors: [spanProcessor] });
  // Each is a no-op when one is registered already.
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  return {
    tracer: provider.getTracer('waveloop'),
    spanProcessor,
    resource,
    shutdown: () => provider.shutdown(),
  };
}

/** The SDK's defaults, `service.name` waveloop, then `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES`, then the options. */
function tracingResource(options: TracingOptions): IResource {
  return Resource.default()
    .merge(new Resource({ 'service.name': 'waveloop' }))
    .merge(envDetectorSync.detect())
    .merge(
      new Resource({
        ...options.resourceAttributes,
        ...(options.serviceName ? { 'service.name': options.serviceName } : {}),
      }),
    );
}
