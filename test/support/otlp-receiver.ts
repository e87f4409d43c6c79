import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
// The OTLP protobuf messages, as the OpenTelemetry exporter's own serializer compiled them.
import otlpProtos from '@opentelemetry/otlp-transformer/build/src/generated/root';

/** A span as the receiver decoded it from what a worker really exported (ids in hex). */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTLP's span kind: 1 internal, 2 server, 3 client, … */
  kind: number;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  status: { code: number; message?: string };
  attributes: Record<string, unknown>;
  events: Array<{ name: string; attributes: Record<string, unknown> }>;
  resource: Record<string, unknown>;
  /** How the span arrived: `application/json` or `application/x-protobuf`. */
  encoding: string;
}

type AnyValue = {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
  kvlistValue?: { values?: KeyValue[] };
};
type KeyValue = { key: string; value?: AnyValue };
type OtlpSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  status?: { code?: number; message?: string };
  attributes?: KeyValue[];
  events?: Array<{ name: string; attributes?: KeyValue[] }>;
};
type TraceRequest = {
  resourceSpans?: Array<{ resource?: { attributes?: KeyValue[] }; scopeSpans?: Array<{ spans?: OtlpSpan[] }> }>;
};

const ExportTraceServiceRequest = (
  otlpProtos as unknown as {
    opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: ProtoType } } } } };
  }
).opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
interface ProtoType {
  decode(bytes: Uint8Array): unknown;
  toObject(message: unknown, options: { longs: typeof String; bytes: typeof String; defaults: boolean }): TraceRequest;
}

/**
 * An OTLP/HTTP trace receiver for the tests, as a collector would be: it accepts `POST /v1/traces`
 * in JSON or protobuf, decodes every span and keeps it. `endpoint` is what `OTEL_EXPORTER_OTLP_ENDPOINT`
 * takes (the exporter adds `/v1/traces`).
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  endpoint = '';
  private server?: http.Server;

  async start(): Promise<this> {
    this.server = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const encoding = (request.headers['content-type'] ?? '').split(';')[0];
        try {
          if (request.url !== '/v1/traces') throw new Error(`unexpected path ${request.url}`);
          this.spans.push(...decode(Buffer.concat(chunks), encoding));
          response.writeHead(200, { 'content-type': encoding }).end(encoding === 'application/json' ? '{}' : '');
        } catch (err) {
          response.writeHead(400).end(String(err));
        }
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.endpoint = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
  }

  /** The spans of one workflow: those with its `waveloop.workflow.id` or Temporal's workflow id attributes. */
  ofWorkflow(workflowId: string): ReceivedSpan[] {
    return this.spans.filter((span) =>
      [
        span.attributes['waveloop.workflow.id'],
        span.attributes.temporalWorkflowId,
        span.attributes.workflowId,
      ].includes(workflowId),
    );
  }
}

function decode(body: Buffer, encoding: string): ReceivedSpan[] {
  const request: TraceRequest =
    encoding === 'application/json'
      ? (JSON.parse(body.toString('utf8')) as TraceRequest)
      : encoding === 'application/x-protobuf'
        ? ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(body), {
            longs: String,
            bytes: String,
            defaults: false,
          })
        : (() => {
            throw new Error(`unexpected content type ${encoding}`);
          })();
  // Protobuf bytes arrive in base64; OTLP/JSON writes ids in hex.
  const id = (value: string | undefined) =>
    value === undefined || value === ''
      ? undefined
      : encoding === 'application/json'
        ? value
        : Buffer.from(value, 'base64').toString('hex');
  return (request.resourceSpans ?? []).flatMap(({ resource, scopeSpans }) =>
    (scopeSpans ?? []).flatMap(({ spans }) =>
      (spans ?? []).map((span) => ({
        traceId: id(span.traceId)!,
        spanId: id(span.spanId)!,
        parentSpanId: id(span.parentSpanId),
        name: span.name,
        kind: span.kind ?? 0,
        status: { code: span.status?.code ?? 0, ...(span.status?.message ? { message: span.status.message } : {}) },
        attributes: attributesOf(span.attributes),
        events: (span.events ?? []).map((event) => ({ name: event.name, attributes: attributesOf(event.attributes) })),
        resource: attributesOf(resource?.attributes),
        encoding,
      })),
    ),
  );
}

function attributesOf(list: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, valueOf(value)]));
}

function valueOf(value: AnyValue | undefined): unknown {
  if (!value) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(valueOf);
  if (value.kvlistValue) return attributesOf(value.kvlistValue.values);
  return undefined;
}
