import {
  context,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import {
  ActivityFailure,
  ApplicationFailure,
  ChildWorkflowFailure,
  ContinueAsNew,
  isCancellation,
  workflowInfo,
} from '@temporalio/workflow';
import type { ResolvedRun, ToolInfo } from '../../contract/activity-io';
import type { AgentLoopResult } from '../../contract/agent-loop';
import { GOAL_TREE_ACTIVITIES } from '../../contract/goal-tree/activities';
import { PURSUE_GOAL_WORKFLOW } from '../../contract/goal-tree/defaults';
import type { GoalResult } from '../../contract/goal-tree/pursue-goal';
import {
  MODEL_CALL_ACTIVITIES,
  modelCallInput,
  modelCallOutput,
  TOOL_CALL_ACTIVITY,
  toolCallCount,
  toolCallInput,
} from '../../contract/model/activities';
import { maskArgs, maskArguments } from '../../contract/sensitive';
import { APPROVAL_EVENT, Attr, ContentAttr, GenAiOperation } from './trace-attributes';

/**
 * The GenAI spans of one workflow, after the OpenTelemetry GenAI semantic conventions: the run (an
 * `agentLoop`) or the goal (a `pursueGoal`) is an `invoke_agent` span; each model call under it a
 * `chat` span, each tool call an `execute_tool` span, both spanning the activity with its retries,
 * so the `RunActivity` spans of its attempts sit beneath them. Approval decisions are events of the
 * `invoke_agent` span, and an approved call's span says so.
 *
 * Made by workflow interceptors (`tracing-interceptors.ts`) from what activities are given and
 * return: the workflow code itself knows nothing of tracing. Each span watches the promise it
 * spans from the side and hands on that very promise, so the workflow runs step for step as it
 * would untraced. Content (prompts, replies, tool arguments and results) is always set here, under
 * `ContentAttr` names; the worker drops it before export unless content tracing is on, since
 * workflow code cannot read the worker's configuration. Tool arguments, in `execute_tool` spans and
 * in the tool calls of a `chat` span's reply, show the tool's `sensitive` parameters masked: the
 * run's tools come from its `resolveRun`, or from the run it continues.
 */
export class RunSpans {
  private root: Span | undefined;
  /** The iteration of the latest `callModel`: the wave whose tool calls follow it. */
  private iteration: number | undefined;
  private readonly approved = new Set<string>();
  /** The sensitive parameters of each of the run's tools that has some (`ToolInfo.sensitive`). */
  private sensitive = new Map<string, string[]>();

  constructor(private readonly tracer: Tracer) {}

  /** Runs the workflow inside its `invoke_agent` span (under `parent`, the trace of whoever started it), which ends with the run's status and usage. */
  invoke(
    workflowType: string,
    args: unknown[],
    parent: Context | undefined,
    run: () => Promise<unknown>,
  ): Promise<unknown> {
    const goal = workflowType === PURSUE_GOAL_WORKFLOW;
    const start = goal ? goalStart(args[0]) : agentStart(args);
    if (!goal) this.learnTools((args[1] as { run?: Partial<ResolvedRun> } | undefined)?.run?.tools);
    const { workflowId } = workflowInfo();
    const attributes: Attributes = {
      [Attr.operationName]: GenAiOperation.InvokeAgent,
      [Attr.agentName]: start.agent,
      [Attr.workflowId]: workflowId,
      [Attr.conversationId]: workflowId,
      ...(start.model ? { [Attr.requestModel]: start.model } : {}),
      ...(start.depth !== undefined ? { [Attr.goalDepth]: start.depth } : {}),
      ...(start.goal ? { [ContentAttr.inputMessages]: textMessages('user', start.goal) } : {}),
    };
    this.root = this.tracer.startSpan(
      `${GenAiOperation.InvokeAgent} ${start.agent}`,
      { kind: SpanKind.INTERNAL, attributes },
      parent ?? context.active(),
    );
    return watched(this.root, parent ?? context.active(), run, {
      settled: (span, result) =>
        span.setAttributes(goal ? goalEnd(result as GoalResult) : agentEnd(result as AgentLoopResult)),
      failed: (span, err) => {
        if (err instanceof ContinueAsNew) span.setAttribute(Attr.status, 'continued_as_new');
        else if (isCancellation(err)) span.setAttribute(Attr.status, 'cancelled');
        else failed(span, err, { [Attr.status]: 'failed' });
      },
    });
  }

  /** Schedules an activity (`schedule`) inside the span of the model call or tool call it is, if it is one. */
  activity<T>(activityType: string, args: unknown[], local: boolean, schedule: () => Promise<T>): Promise<T> {
    if (activityType === 'resolveRun' || activityType === GOAL_TREE_ACTIVITIES.resolve) {
      const resolving = schedule();
      void resolving.then(
        (resolved) => this.resolved(resolved),
        () => undefined,
      );
      return resolving;
    }
    if (MODEL_CALL_ACTIVITIES.has(activityType)) return this.chat(activityType, args, local, schedule);
    if (activityType === TOOL_CALL_ACTIVITY) return this.tool(args, local, schedule);
    return schedule();
  }

  /** A person approved or denied a call: an event of the run's span; an approved call's span will say so. */
  decided(callId: string, tool: string, outcome: 'approved' | 'denied'): void {
    if (outcome === 'approved') this.approved.add(callId);
    this.root?.addEvent(APPROVAL_EVENT, {
      [Attr.toolCallId]: callId,
      [Attr.toolName]: tool,
      [Attr.approvalOutcome]: outcome,
    });
  }

  /** The agent and model a run resolved to (`resolveRun`), or a goal tree's model (`resolveGoal`). */
  private resolved(resolved: unknown): void {
    // A run's `ResolvedRun` has its model in `settings`; a goal tree's resolution has it at the top.
    const { agent, system, settings, ...goal } = (resolved ?? {}) as Partial<ResolvedRun> & { model?: unknown };
    const model = settings?.model ?? goal.model;
    this.learnTools(goal.tools);
    if (!this.root) return;
    if (typeof agent === 'string') {
      this.root.setAttribute(Attr.agentName, agent);
      this.root.updateName(`${GenAiOperation.InvokeAgent} ${agent}`);
    }
    if (typeof model === 'string') this.root.setAttribute(Attr.requestModel, model);
    if (typeof system === 'string') this.root.setAttribute(ContentAttr.systemInstructions, system);
  }

  private chat<T>(activityType: string, args: unknown[], local: boolean, schedule: () => Promise<T>): Promise<T> {
    const { model, iteration, planner } = modelCallInput(args);
    if (activityType === 'callModel' && iteration !== undefined) this.iteration = iteration;
    const attributes: Attributes = {
      [Attr.operationName]: GenAiOperation.Chat,
      [Attr.workflowId]: workflowInfo().workflowId,
      [Attr.activity]: activityType,
      [Attr.local]: local,
      ...(model ? { [Attr.requestModel]: model } : {}),
      ...(activityType === 'callModel' && iteration !== undefined ? { [Attr.iteration]: iteration } : {}),
    };
    return this.around(
      `${GenAiOperation.Chat}${model ? ` ${model}` : ''}`,
      SpanKind.CLIENT,
      attributes,
      schedule,
      (span, output) => {
        const reply = modelCallOutput(output);
        span.setAttributes({
          ...(reply.usage
            ? { [Attr.inputTokens]: reply.usage.promptTokens, [Attr.outputTokens]: reply.usage.completionTokens }
            : {}),
          ...(reply.model ? { [Attr.responseModel]: reply.model } : {}),
          ...(reply.finishReason ? { [Attr.finishReasons]: [reply.finishReason] } : {}),
          ...(planner === 'native' ? { [Attr.waveSize]: toolCallCount(reply.message) } : {}),
          ...(reply.message !== undefined
            ? { [ContentAttr.outputMessages]: replyMessages(reply.message, this.sensitive) }
            : {}),
        });
      },
    );
  }

  private tool<T>(args: unknown[], local: boolean, schedule: () => Promise<T>): Promise<T> {
    const call = toolCallInput(args);
    const attributes: Attributes = {
      [Attr.operationName]: GenAiOperation.ExecuteTool,
      [Attr.toolName]: call.name,
      [Attr.toolCallId]: call.toolCallId,
      [Attr.toolType]: 'function',
      [Attr.workflowId]: workflowInfo().workflowId,
      [Attr.local]: local,
      ...(this.iteration !== undefined ? { [Attr.iteration]: this.iteration } : {}),
      ...(this.approved.has(call.toolCallId) ? { [Attr.approvalOutcome]: 'approved' } : {}),
      [ContentAttr.toolArguments]: JSON.stringify(
        maskArgs((call.args ?? {}) as Record<string, unknown>, this.sensitive.get(call.name)),
      ),
    };
    return this.around(
      `${GenAiOperation.ExecuteTool} ${call.name}`,
      SpanKind.INTERNAL,
      attributes,
      schedule,
      (span, output) => {
        const content = (output as { content?: unknown } | undefined)?.content;
        if (typeof content === 'string') span.setAttribute(ContentAttr.toolResult, content);
      },
    );
  }

  /** Keeps the sensitive parameters of `tools` (a `ResolvedRun`'s), when they are a run's tools. */
  private learnTools(tools: unknown): void {
    if (!Array.isArray(tools)) return;
    for (const tool of tools as Array<Partial<ToolInfo>>)
      if (typeof tool?.name === 'string' && Array.isArray(tool.sensitive))
        this.sensitive.set(tool.name, tool.sensitive);
  }

  /** `fn` inside a span of its own under the active one, ended when what `fn` returned settles. */
  private around<T>(
    name: string,
    kind: SpanKind,
    attributes: Attributes,
    fn: () => Promise<T>,
    settled: (span: Span, output: T) => void,
  ): Promise<T> {
    const span = this.tracer.startSpan(name, { kind, attributes }, context.active());
    return watched(span, context.active(), fn, {
      settled,
      failed: (s, err) => {
        if (!isCancellation(err)) failed(s, err);
      },
    });
  }
}

/**
 * Calls `fn` with `span` active (what it schedules carries the span in its headers) and returns
 * `fn`'s own promise: the span is ended from a reaction of its own, with nothing awaited between
 * the promise and its awaiter, which would reorder the workflow's commands.
 */
function watched<T>(
  span: Span,
  parent: Context,
  fn: () => Promise<T>,
  on: { settled(span: Span, value: T): void; failed(span: Span, err: unknown): void },
): Promise<T> {
  let promise: Promise<T>;
  try {
    promise = context.with(trace.setSpan(parent, span), fn);
  } catch (err) {
    on.failed(span, err);
    span.end();
    throw err;
  }
  void promise.then(
    (value) => {
      on.settled(span, value);
      span.end();
    },
    (err: unknown) => {
      on.failed(span, err);
      span.end();
    },
  );
  return promise;
}

/** Marks `span` failed: `error.type` is the failure's type (an activity's or child's cause), the status says why. */
function failed(span: Span, err: unknown, attributes: Attributes = {}): void {
  const failure =
    (err instanceof ActivityFailure || err instanceof ChildWorkflowFailure) && err.cause ? err.cause : err;
  const type =
    failure instanceof ApplicationFailure && failure.type
      ? failure.type
      : failure instanceof Error
        ? failure.name
        : 'Error';
  span.setAttributes({ ...attributes, [Attr.errorType]: type });
  span.setStatus({ code: SpanStatusCode.ERROR, message: failure instanceof Error ? failure.message : String(failure) });
}

interface Start {
  agent: string;
  model?: string;
  goal?: string;
  depth?: number;
}

/** An `agentLoop` run: its input, or what the run it continues handed over. */
function agentStart(args: unknown[]): Start {
  const input = (args[0] ?? {}) as { agent?: unknown; model?: unknown; goal?: unknown };
  const carried = (args[1] as { run?: Partial<ResolvedRun> } | undefined)?.run;
  const agent = carried?.agent ?? input.agent;
  const model = carried?.settings?.model ?? input.model;
  return {
    agent: typeof agent === 'string' ? agent : 'default',
    model: typeof model === 'string' ? model : undefined,
    goal: typeof input.goal === 'string' ? input.goal : undefined,
  };
}

/** A goal: the root's, or a sub-goal's node's. */
function goalStart(raw: unknown): Start {
  const input = (raw ?? {}) as {
    goal?: unknown;
    model?: unknown;
    node?: { goal?: unknown; model?: unknown; path?: unknown };
  };
  const node = input.node;
  const goal = node?.goal ?? input.goal;
  const model = node?.model ?? input.model;
  return {
    agent: 'goal',
    model: typeof model === 'string' ? model : undefined,
    goal: typeof goal === 'string' ? goal : undefined,
    depth: Array.isArray(node?.path) ? node.path.length : 0,
  };
}

function agentEnd(result: AgentLoopResult): Attributes {
  return {
    [Attr.status]: result.status,
    [Attr.iterations]: result.iterations,
    [Attr.inputTokens]: result.usage.promptTokens,
    [Attr.outputTokens]: result.usage.completionTokens,
    [ContentAttr.outputMessages]: textMessages('assistant', result.answer),
  };
}

function goalEnd(result: GoalResult): Attributes {
  return {
    [Attr.status]: result.status,
    [Attr.inputTokens]: result.usage.promptTokens,
    [Attr.outputTokens]: result.usage.completionTokens,
    [ContentAttr.outputMessages]: textMessages('assistant', result.report.summary),
  };
}

/**
 * A model's reply (Chat Completions form) as the GenAI conventions write `gen_ai.output.messages`,
 * each tool call's sensitive arguments (`sensitive`, by tool) masked.
 */
function replyMessages(message: unknown, sensitive: ReadonlyMap<string, string[]>): string {
  const { content, tool_calls: calls } = message as {
    content?: unknown;
    tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  };
  const parts = [
    ...(typeof content === 'string' && content !== '' ? [{ type: 'text', content }] : []),
    ...(calls ?? []).map((call) => ({
      type: 'tool_call',
      id: call.id,
      name: call.function.name,
      arguments: maskArguments(call.function.arguments, sensitive.get(call.function.name)),
    })),
  ];
  return JSON.stringify([{ role: 'assistant', parts }]);
}

/** One message of text, as the GenAI conventions write `gen_ai.input.messages` and `gen_ai.output.messages`. */
function textMessages(role: 'user' | 'assistant', text: string): string {
  return JSON.stringify([{ role, parts: [{ type: 'text', content: text }] }]);
}
