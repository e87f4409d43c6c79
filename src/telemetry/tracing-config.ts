import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';

/** The OTLP/HTTP encodings waveloop exports traces in (`OTEL_EXPORTER_OTLP_PROTOCOL`). */
export type OtlpProtocol = 'http/protobuf' | 'http/json';

/**
 * Where and how a worker sends the traces of its runs (`createWorker({ tracing })`). Any field left
 * out comes from the standard OpenTelemetry variables, as the OpenTelemetry SDK reads them.
 */
export interface TracingOptions {
  /**
   * The OTLP/HTTP traces URL, e.g. `http://localhost:4318/v1/traces`. Default:
   * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, else `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`.
   */
  url?: string;
  /** Default: `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`, else `OTEL_EXPORTER_OTLP_PROTOCOL`, else `http/protobuf`. */
  protocol?: OtlpProtocol;
  /** Headers of every export request (an API key of the backend). Default: `OTEL_EXPORTER_OTLP_HEADERS`. */
  headers?: Record<string, string>;
  /** `service.name` of the spans. Default: `OTEL_SERVICE_NAME`, else `waveloop`. */
  serviceName?: string;
  /** More resource attributes, over those of `OTEL_RESOURCE_ATTRIBUTES`. */
  resourceAttributes?: Record<string, string>;
  /**
   * Put prompts, replies, tool arguments and results, and error messages into spans. Default:
   * `WAVELOOP_TRACE_CONTENT=true`; otherwise spans carry names, models, ids, token counts and error
   * types only.
   */
  content?: boolean;
  /** Hand spans to this processor instead of an OTLP exporter (another exporter, or a test's). */
  spanProcessor?: SpanProcessor;
}

type Env = Record<string, string | undefined>;

/**
 * The tracing the environment asks for: on when `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_ENDPOINT` is set, unless `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`;
 * undefined (off) otherwise. Throws for a protocol other than OTLP over HTTP.
 */
export function tracingFromEnv(env: Env = process.env): TracingOptions | undefined {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint || env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  if (env.OTEL_TRACES_EXPORTER?.split(',').some((exporter) => exporter.trim() === 'none')) return undefined;
  return { protocol: protocolFrom(env), content: traceContentFromEnv(env) };
}

/** Whether `WAVELOOP_TRACE_CONTENT` opts into content in spans (`true` or `1`). */
export function traceContentFromEnv(env: Env = process.env): boolean {
  return ['true', '1'].includes(env.WAVELOOP_TRACE_CONTENT?.trim().toLowerCase() ?? '');
}

function protocolFrom(env: Env): OtlpProtocol {
  const protocol = (
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ||
    env.OTEL_EXPORTER_OTLP_PROTOCOL ||
    'http/protobuf'
  ).trim();
  if (protocol === 'http/protobuf' || protocol === 'http/json') return protocol;
  throw new Error(
    `OTEL_EXPORTER_OTLP_PROTOCOL is "${protocol}": waveloop exports traces over OTLP/HTTP, so set it to http/protobuf or http/json (a collector's port 4318).`,
  );
}
