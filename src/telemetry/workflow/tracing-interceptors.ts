import { trace } from '@opentelemetry/api';
import {
  extractContextFromHeaders,
  headersWithContext,
} from '@temporalio/interceptors-opentelemetry/lib/instrumentation';
import {
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow';
import { workflowInfo } from '@temporalio/workflow';
import type {
  ActivityInput,
  ContinueAsNewInput,
  GetLogAttributesInput,
  LocalActivityInput,
  Next,
  StartChildWorkflowExecutionInput,
  UpdateInput,
  WorkflowExecuteInput,
  WorkflowInboundCallsInterceptor,
  WorkflowInterceptors,
  WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';
import { approveUpdate, denyUpdate } from '../../contract/messages';
import { RunSpans } from './run-spans';
import { isRunWorkflow } from './run-workflows';

/**
 * The workflow interceptors of tracing, a module of the workflow bundle only when tracing is on
 * (`telemetryWorkflowModules`). Built on Temporal's OpenTelemetry interceptors: their workflow
 * tracer provider, which sends a workflow's spans out through a sink, and their trace header, which
 * carries the trace to activities (where Temporal's activity interceptor makes each attempt a
 * `RunActivity` span) and to child workflows, so a goal tree is one trace. The spans themselves are
 * waveloop's GenAI spans (`RunSpans`): `invoke_agent` for the workflow, `chat` and `execute_tool`
 * for its model and tool calls.
 *
 * Temporal's own workflow spans are left out: their interceptors await around every activity,
 * update and workflow, and those extra steps reorder a workflow's commands, so a run started
 * without tracing would fail to replay with it (or the other way round). These interceptors add no
 * step: each hands on the very promise it got and watches it from the side, so tracing can be
 * turned on or off with runs in flight (test/e2e/traces.test.ts replays every recorded
 * history with them).
 *
 * Replay-safe: the sink is not called while replaying, so a worker that takes a run over after a
 * crash exports only what happens from then on. Span ids come from the workflow's seeded random
 * numbers, so the replayed spans are the ones the first worker started and the trace stays whole.
 * Workflow code must therefore not depend on the values of `Math.random()` or `uuid4()`: tracing
 * draws from them too.
 */
export const interceptors = (): WorkflowInterceptors => {
  // Temporal's interceptor registers the workflow's tracer provider, whose tracer RunSpans uses;
  // only its log attributes (trace and span ids in the workflow's log) are used.
  const temporal = new OpenTelemetryOutboundInterceptor();
  const spans = new RunSpans(trace.getTracer('waveloop'));
  return {
    inbound: [new SpansInbound(spans)],
    outbound: [new SpansOutbound(spans, temporal)],
    internals: [new OpenTelemetryInternalsInterceptor()],
  };
};

class SpansInbound implements WorkflowInboundCallsInterceptor {
  constructor(private readonly spans: RunSpans) {}

  execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const { workflowType } = workflowInfo();
    // An eval or a webhook's delivery is no agent run: it has no `invoke_agent` span.
    if (!isRunWorkflow(workflowType)) return next(input);
    return this.spans.invoke(workflowType, input.args, extractContextFromHeaders(input.headers), () => next(input));
  }

  handleUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'handleUpdate'>): Promise<unknown> {
    const handled = next(input);
    if (input.name === approveUpdate.name || input.name === denyUpdate.name) {
      const outcome = input.name === approveUpdate.name ? 'approved' : 'denied';
      void handled.then(
        (output) =>
          this.spans.decided((output as { callId: string }).callId, (output as { tool: string }).tool, outcome),
        () => undefined,
      );
    }
    return handled;
  }
}

class SpansOutbound implements WorkflowOutboundCallsInterceptor {
  constructor(
    private readonly spans: RunSpans,
    private readonly temporal: OpenTelemetryOutboundInterceptor,
  ) {}

  scheduleActivity(
    input: ActivityInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>,
  ): Promise<unknown> {
    return this.spans.activity(input.activityType, input.args, false, () =>
      next({ ...input, headers: headersWithContext(input.headers) }),
    );
  }

  scheduleLocalActivity(
    input: LocalActivityInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'scheduleLocalActivity'>,
  ): Promise<unknown> {
    return this.spans.activity(input.activityType, input.args, true, () =>
      next({ ...input, headers: headersWithContext(input.headers) }),
    );
  }

  startChildWorkflowExecution(
    input: StartChildWorkflowExecutionInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'startChildWorkflowExecution'>,
  ): Promise<[Promise<string>, Promise<unknown>]> {
    return next({ ...input, headers: headersWithContext(input.headers) });
  }

  continueAsNew(
    input: ContinueAsNewInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'continueAsNew'>,
  ): Promise<never> {
    return next({ ...input, headers: headersWithContext(input.headers) });
  }

  getLogAttributes(
    input: GetLogAttributesInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'getLogAttributes'>,
  ): Record<string, unknown> {
    return this.temporal.getLogAttributes(input, next);
  }
}
