import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { filtered } from '../../src/telemetry/export-filter';
import { metricsAddressFromEnv } from '../../src/telemetry/metrics-runtime';
import { traceContentFromEnv, tracingFromEnv } from '../../src/telemetry/tracing-config';

describe('tracingFromEnv', () => {
  it('is off without an OTLP endpoint', () => {
    expect(tracingFromEnv({})).toBeUndefined();
    expect(tracingFromEnv({ OTEL_SERVICE_NAME: 'agents', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toBeUndefined();
  });

  it('is on with either endpoint variable, in protobuf unless the protocol says JSON', () => {
    expect(tracingFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toEqual({
      protocol: 'http/protobuf',
      content: false,
    });
    expect(
      tracingFromEnv({
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      }),
    ).toEqual({
      protocol: 'http/json',
      content: false,
    });
    // The traces' own protocol wins over the general one.
    expect(
      tracingFromEnv({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
      })?.protocol,
    ).toBe('http/protobuf');
  });

  it('is off when the SDK is disabled or the traces exporter is none', () => {
    expect(tracingFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(
      tracingFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' }),
    ).toBeUndefined();
  });

  it('refuses gRPC, saying what to set', () => {
    expect(() =>
      tracingFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }),
    ).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL is "grpc": .*http\/protobuf or http\/json/);
  });

  it('takes content only from WAVELOOP_TRACE_CONTENT=true', () => {
    expect(traceContentFromEnv({})).toBe(false);
    expect(traceContentFromEnv({ WAVELOOP_TRACE_CONTENT: 'false' })).toBe(false);
    expect(traceContentFromEnv({ WAVELOOP_TRACE_CONTENT: 'TRUE' })).toBe(true);
    expect(
      tracingFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', WAVELOOP_TRACE_CONTENT: 'true' })?.content,
    ).toBe(true);
  });
});

describe('metricsAddressFromEnv', () => {
  it('is the address of WAVELOOP_METRICS_ADDRESS, or none', () => {
    expect(metricsAddressFromEnv({})).toBeUndefined();
    expect(metricsAddressFromEnv({ WAVELOOP_METRICS_ADDRESS: ' 0.0.0.0:9464 ' })).toBe('0.0.0.0:9464');
  });
});

describe('the export filter', () => {
  const span = {
    name: 'execute_tool lookup_invoice',
    kind: SpanKind.INTERNAL,
    spanContext: () => ({ traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags: 1 }),
    startTime: [0, 0],
    endTime: [1, 0],
    status: { code: SpanStatusCode.ERROR, message: 'No invoice INV-9 for Initech' },
    attributes: {
      'gen_ai.tool.name': 'lookup_invoice',
      'error.type': 'ToolError',
      'gen_ai.tool.call.arguments': '{"number":"INV-9"}',
      // As Temporal's workflow span sink copies the workflow's info: objects and dates are no attribute values.
      searchAttributes: { WaveloopStatus: ['running'] },
      startTime: new Date(0),
    },
    links: [],
    events: [
      {
        name: 'exception',
        time: [0, 0],
        attributes: {
          'exception.type': 'ToolError',
          'exception.message': 'No invoice INV-9',
          'exception.stacktrace': 'at …',
        },
      },
    ],
  } as unknown as ReadableSpan;

  it('without content: no arguments, results or error text; the error type and status code stay', () => {
    const out = filtered(span, false);
    expect(out.attributes).toEqual({ 'gen_ai.tool.name': 'lookup_invoice', 'error.type': 'ToolError' });
    expect(out.status).toEqual({ code: SpanStatusCode.ERROR });
    expect(out.events).toEqual([{ name: 'exception', time: [0, 0], attributes: { 'exception.type': 'ToolError' } }]);
    expect(out.spanContext().spanId).toBe('b'.repeat(16));
    // The span itself is left as it was.
    expect(span.attributes['gen_ai.tool.call.arguments']).toBe('{"number":"INV-9"}');
  });

  it('with content: everything but what is no attribute value', () => {
    const out = filtered(span, true);
    expect(out.attributes).toEqual({
      'gen_ai.tool.name': 'lookup_invoice',
      'error.type': 'ToolError',
      'gen_ai.tool.call.arguments': '{"number":"INV-9"}',
    });
    expect(out.status.message).toBe('No invoice INV-9 for Initech');
    expect(out.events).toBe(span.events);
  });
});
