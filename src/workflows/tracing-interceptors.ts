import { trace } from '@opentelemetry/api';
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow';
import { workflowInfo } from '@temporalio/workflow';
import type {
  ActivityInput,
  LocalActivityInput,
  Next,
  UpdateInput,
  WorkflowExecuteInput,
  WorkflowInboundCallsInterceptor,
  WorkflowInterceptors,
  WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';
import { approveUpdate, denyUpdate } from '../common/messages';
import { RunSpans } from './run-spans';

/**
 * The workflow interceptors of tracing, a module of the workflow bundle only when tracing is on
 * (`telemetryWorkflowModules`): Temporal's OpenTelemetry interceptors (the workflow's `RunWorkflow`
 * span under the trace of whoever started it, `StartActivity` and `StartChildWorkflowExecution`
 * spans that carry the trace to activities and child workflows, so a goal tree is one trace) with
 * waveloop's GenAI spans (`RunSpans`) between them: `invoke_agent` inside `RunWorkflow`, `chat` and
 * `execute_tool` around `StartActivity`. Queries are not traced: followers ask for a run's status
 * many times a second.
 *
 * Replay-safe: spans leave a workflow through a sink, which the SDK does not call while replaying,
 * so a worker that takes a run over after a crash exports only what happens from then on. Span ids
 * come from the workflow's seeded random numbers, so the replayed spans are the ones the first
 * worker started and the trace stays whole. Workflow code must therefore not depend on the values
 * of `Math.random()` or `uuid4()`: tracing draws from them too.
 */
export const interceptors = (): WorkflowInterceptors => {
  // Temporal's interceptor registers the workflow's tracer provider, whose tracer RunSpans uses.
  const temporalInbound = new OpenTelemetryInboundInterceptor();
  const spans = new RunSpans(trace.getTracer('waveloop'));
  return {
    inbound: [withoutQueries(temporalInbound), new SpansInbound(spans)],
    outbound: [new SpansOutbound(spans), new OpenTelemetryOutboundInterceptor()],
    internals: [new OpenTelemetryInternalsInterceptor()],
  };
};

/** Temporal's inbound interceptor, but for queries. */
function withoutQueries(inbound: OpenTelemetryInboundInterceptor): WorkflowInboundCallsInterceptor {
  return {
    execute: (input, next) => inbound.execute(input, next),
    handleSignal: (input, next) => inbound.handleSignal(input, next),
    handleUpdate: (input, next) => inbound.handleUpdate(input, next),
    validateUpdate: (input, next) => inbound.validateUpdate(input, next),
  };
}

class SpansInbound implements WorkflowInboundCallsInterceptor {
  constructor(private readonly spans: RunSpans) {}

  execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    return this.spans.invoke(workflowInfo().workflowType, input.args, () => next(input));
  }

  async handleUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'handleUpdate'>): Promise<unknown> {
    const output = await next(input);
    if (input.name === approveUpdate.name || input.name === denyUpdate.name) {
      const { callId, tool } = output as { callId: string; tool: string };
      this.spans.decided(callId, tool, input.name === approveUpdate.name ? 'approved' : 'denied');
    }
    return output;
  }
}

class SpansOutbound implements WorkflowOutboundCallsInterceptor {
  constructor(private readonly spans: RunSpans) {}

  scheduleActivity(input: ActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>): Promise<unknown> {
    return this.spans.activity(input.activityType, input.args, false, () => next(input));
  }

  scheduleLocalActivity(input: LocalActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleLocalActivity'>): Promise<unknown> {
    return this.spans.activity(input.activityType, input.args, true, () => next(input));
  }
}
