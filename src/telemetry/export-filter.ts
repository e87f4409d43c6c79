import type { Attributes, Context } from '@opentelemetry/api';
import { sanitizeAttributes } from '@opentelemetry/core';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { CONTENT_ATTRIBUTES } from './workflow/trace-attributes';

/** The only attribute an `exception` event keeps without content: what kind of error it was. */
const EXCEPTION_TYPE = 'exception.type';

/**
 * What leaves the worker, in front of the exporter's span processor. Every span keeps only valid
 * attribute values: Temporal's workflow span sink copies the workflow's info onto its spans, objects
 * and dates included. Without `content`, a span also loses what the model and the tools said: the
 * `CONTENT_ATTRIBUTES`, its status message, and the message and stack trace of its exceptions (a
 * tool's error is text the model reads, and an endpoint's error may quote the prompt); it keeps its
 * status code and `error.type`.
 */
export class ExportFilter implements SpanProcessor {
  constructor(
    private readonly next: SpanProcessor,
    private readonly content: boolean,
  ) {}

  onStart(span: Span, parentContext: Context): void {
    this.next.onStart(span, parentContext);
  }

  onEnd(span: ReadableSpan): void {
    this.next.onEnd(filtered(span, this.content));
  }

  forceFlush(): Promise<void> {
    return this.next.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.next.shutdown();
  }
}

/** `span` as it may leave the worker (a copy; the span itself is left as it is). */
export function filtered(span: ReadableSpan, content: boolean): ReadableSpan {
  const attributes = sanitizeAttributes(span.attributes);
  if (!content) for (const key of CONTENT_ATTRIBUTES) delete attributes[key];
  return {
    name: span.name,
    kind: span.kind,
    spanContext: () => span.spanContext(),
    parentSpanId: span.parentSpanId,
    startTime: span.startTime,
    endTime: span.endTime,
    status: content || span.status.message === undefined ? span.status : { code: span.status.code },
    attributes,
    links: span.links,
    events: content
      ? span.events
      : span.events.map((event) =>
          event.name === 'exception' ? { ...event, attributes: only(event.attributes, EXCEPTION_TYPE) } : event,
        ),
    duration: span.duration,
    ended: span.ended,
    resource: span.resource,
    instrumentationLibrary: span.instrumentationLibrary,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}

function only(attributes: Attributes | undefined, key: string): Attributes {
  return attributes?.[key] === undefined ? {} : { [key]: attributes[key] };
}
