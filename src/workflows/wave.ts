import { ActivityFailure, ApplicationFailure, isCancellation, proxyActivities } from '@temporalio/workflow';
import type { createActivities } from '../activities';
import type { PrepareApprovalInput, ToolCallInput, ToolCallOutput, ToolInfo } from '../contract/activity-io';
import type { ApprovalRecord, ToolCallMessagePart, ToolCallRecord } from '../contract/agent-loop';
import type { ApprovalPolicy } from '../contract/people/approvals';
import { maskArgs } from '../contract/sensitive';
import { toolSummary } from '../contract/summaries';
import { agentShares, callAgent, type AgentCallContext, type AgentShare } from './agent-calls';
import type { AuditNote } from './audit-trail';
import { handoffCall } from './handoff';
import type { Decision, HumanGate } from './human-gate';
import { DENIED } from './limits';
import { Slots } from './slots';
import { runHeldBack, runToolCall, type AttemptContext } from './tool-attempts';

type Activities = ReturnType<typeof createActivities>;

/** Settles who may decide a call that waits and what they see (its preview takes at most `PREVIEW_TIMEOUT_SECONDS`). */
const { prepareApproval } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 3 },
});

export interface WaveContext {
  iteration: number;
  tools: Map<string, ToolInfo>;
  workflowId: string;
  gate: HumanGate;
  /**
   * The run's progress: who started it (each tool's context says so), when, and what it used so far
   * (an agent call's share of the budgets; its child's usage is added to it).
   */
  progress: AgentCallContext['progress'];
  /**
   * The run: its agent (whose approval rules a rule-checked call asks), its place in the task queue
   * (for its tool activities), its settings (`maxParallelTools`, `answerTimeoutSeconds`), and, for
   * its agent calls, its model's price and its place in a tree of agents.
   */
  run: AgentCallContext['run'];
  /** Told of each call as it settles, before the rest of its wave (for live followers). */
  settled?: (record: ToolCallRecord) => void;
  /** Told of each call that waited for approval and ran, under a key unique in the run (its audit trail). */
  audit?: (key: string, note: AuditNote) => void;
}

/**
 * Runs the tool calls of one model reply as one wave: up to `maxParallelTools` of its tool
 * activities are scheduled in the same workflow task, so they start before any completes; each
 * further call starts as soon as an earlier one's activity settles, in call order. The results come
 * back in call order whatever order they settle in. A call the model got wrong (unknown tool,
 * arguments that are not a JSON object) is answered here without an activity; a failing tool
 * becomes an error the model sees. A call that needs approval waits for it without holding back
 * the others and without holding a slot (only a running activity holds one), and `ask_question`
 * waits for a person meanwhile. Nothing here fails the run; cancellation goes through.
 */
export function runWave(calls: ToolCallMessagePart[], context: WaveContext): Promise<ToolCallRecord[]> {
  const { settled } = context;
  const slots = new Slots(context.run.settings.maxParallelTools);
  const agentCalls = calls.filter((call) => context.tools.get(call.function.name)?.agent).length;
  const share = agentShares(agentCalls, context);
  return Promise.all(
    calls.map((call) =>
      settled
        ? runCall(call, context, slots, share).then((record) => (settled(record), record))
        : runCall(call, context, slots, share),
    ),
  );
}

async function runCall(
  call: ToolCallMessagePart,
  context: WaveContext,
  slots: Slots,
  share: AgentShare,
): Promise<ToolCallRecord> {
  const { iteration, tools, workflowId, gate, run, audit } = context;
  const { startedBy } = context.progress;
  const { agent, priority } = run;
  // How the call's attempts went when one may have acted (`write` tools: tool-attempts.ts).
  const heartbeatMs = run.settings.heartbeatSeconds * 1000;
  const attempts: AttemptContext = { slots, priority, heartbeatMs, gate: gate.outcomes, iteration };
  const execute = (tool: ToolInfo, input: ToolCallInput, summary: string) =>
    runToolCall(tool, input, summary, attempts);
  const name = call.function.name;
  const args = parseArguments(call.function.arguments);
  const record = { id: call.id, tool: name, args: args.ok ? args.value : {} };
  const tool = tools.get(name);
  if (!tool) {
    const available = [...tools.keys()].join(', ');
    return { ...record, ok: false, error: `Unknown tool "${name}". Available tools: ${available}.` };
  }
  if (!args.ok) return { ...record, ok: false, error: args.error };
  // An agent offered as a tool (`agents`) runs as a child run (agent-calls.ts).
  if (tool.agent)
    return { ...record, ...(await callAgent({ id: call.id, agent: name, args: args.value }, context, share, slots)) };
  if (tool.interaction)
    return { ...record, ...(await interact(tool, call.id, args.value, gate, run.settings.answerTimeoutSeconds)) };
  const target = { workflowId, toolCallId: call.id, name, startedBy };
  let approval: { approval: ApprovalRecord } | undefined;
  let runArgs = args.value;
  // A dry run holds back every call that is not a read, and every call that would wait for approval.
  let heldBack: { heldBack: true } | undefined;
  const holdBack = async (summary: string) => {
    heldBack = { heldBack: true };
    const output = await runHeldBack(tool, { ...target, args: args.value, mode: 'dryRun' }, summary, attempts);
    return ran({ ...record, ok: true, result: contentOf(output), ...heldBack });
  };
  try {
    // A call with an approval rule runs at once, in one activity, unless its rule says it must wait.
    // Summaries show sensitive values masked; the activities get the real ones.
    const { sensitive } = tool;
    const summary = toolSummary(iteration, name, maskArgs(args.value, sensitive));
    const { dryRun } = run.settings;
    if (dryRun && (tool.effect !== 'read' || tool.approval?.when === 'always')) return await holdBack(summary);
    let output =
      tool.approval?.when === 'rule'
        ? await execute(tool, { ...target, args: args.value, approvalRule: { agent } }, summary)
        : undefined;
    if (tool.approval && (tool.approval.when === 'always' || (output && 'needsApproval' in output))) {
      if (dryRun) return await holdBack(summary);
      const policy =
        output && 'needsApproval' in output
          ? output.needsApproval
          : await policyOf({ workflowId, toolCallId: call.id, name, args: args.value, agent, startedBy }, summary);
      const { timeoutSeconds, onTimeout } = tool.approval;
      const request = {
        callId: call.id,
        tool: name,
        args: args.value,
        iteration,
        policy,
        timeoutSeconds,
        onTimeout,
        ...(sensitive ? { sensitive } : {}),
      };
      const decision = await gate.approval(request);
      if (policy.approvers) attempts.approvers = policy.approvers;
      approval = { approval: approvalRecord(decision, args.value, policy.reason) };
      if (!decision.approved) return { ...record, ok: false, error: `${DENIED} ${decision.reason}`, ...approval };
      runArgs = decision.args ?? args.value;
      const edited = decision.args ? { originalArgs: args.value } : {};
      const approvedBy = decision.approvals.map((vote) => vote.by);
      const approved = `${toolSummary(iteration, name, maskArgs(runArgs, sensitive))} · approved by ${approvedBy.join(', ') || decision.by}`;
      output = await execute(tool, { ...target, args: runArgs, ...edited, approvedBy }, approved);
    }
    output ??= await execute(tool, { ...target, args: args.value }, summary);
    return ran({ ...record, args: runArgs, ok: true, result: contentOf(output), ...approval, ...outcome() });
  } catch (err) {
    if (isCancellation(err)) throw err;
    const error = describeToolFailure(err);
    return ran({ ...record, args: runArgs, ok: false, error, ...approval, ...outcome(), ...heldBack });
  }

  function outcome(): Pick<ToolCallRecord, 'outcome'> {
    return attempts.outcome ? { outcome: attempts.outcome } : {};
  }

  /**
   * A call that ran after its approval, or that changes something (its tool's effect is not `read`),
   * is told to the audit trail: its arguments (sensitive values masked), result or error, who
   * approved it, and its effect. A call a dry run held back did nothing, and is not told.
   */
  function ran(done: ToolCallRecord): ToolCallRecord {
    if (audit && !done.heldBack && (done.approval || tool!.effect !== 'read'))
      audit(`call/${done.id}`, {
        kind: 'tool_call',
        at: new Date().toISOString(),
        person: startedBy,
        tool: done.tool,
        callId: done.id,
        details: {
          args: maskArgs(done.args, tool?.sensitive),
          ok: done.ok,
          ...(done.ok ? { result: done.result } : { error: done.error }),
          effect: tool!.effect,
          ...(done.approval
            ? { approvedBy: done.approval.approvals?.map((vote) => vote.by) ?? [done.approval.by] }
            : {}),
          ...(done.outcome ? { outcome: done.outcome } : {}),
        },
      });
    return done;
  }
}

/** The result of a call that ran (a call asked about approval after its decision never waits again). */
function contentOf(output: ToolCallOutput): string {
  return 'content' in output ? output.content : '';
}

/**
 * Who may decide a call that waits whatever its arguments, and what they see (`prepareApproval`,
 * recorded in history). When the worker cannot say, anyone may decide, and the reason says why.
 */
async function policyOf(input: PrepareApprovalInput, summary: string): Promise<ApprovalPolicy> {
  try {
    return await prepareApproval.executeWithOptions({ summary: `${summary} · waits for approval` }, [input]);
  } catch (err) {
    if (isCancellation(err)) throw err;
    return { reason: `who decides could not be settled (${describeToolFailure(err)})`, quorum: 1, fourEyes: true };
  }
}

/** What the call's record keeps of how it was decided. */
function approvalRecord(
  decision: Decision,
  args: Record<string, unknown>,
  required: string | undefined,
): ApprovalRecord {
  return {
    decision: decision.approved ? 'approved' : 'denied',
    by: decision.by,
    at: decision.at,
    ...(decision.approved ? {} : { reason: decision.reason }),
    ...(decision.approved && decision.approvals.length ? { approvals: decision.approvals } : {}),
    ...(required ? { required } : {}),
    ...(decision.approved && decision.args ? { originalArgs: args } : {}),
  };
}

/**
 * The successful call of a loop-breaking tool in a wave, if any: `complete` ends the run with its
 * result (`task_complete`); `conversation` ends the turn with its message (`converse`).
 */
export function loopBreak(
  calls: readonly ToolCallRecord[],
  tools: ReadonlyMap<string, ToolInfo>,
  kind: 'complete' | 'conversation',
): ToolCallRecord | undefined {
  return calls.find((call) => {
    const tool = tools.get(call.tool);
    return call.ok && tool?.loopBreaking && (tool.interaction ?? 'complete') === kind;
  });
}

/** The calls of a wave whose results `runTool` returned (not the tools the workflow answers itself, nor agent calls). */
export function ranOnWorker(calls: readonly ToolCallRecord[], tools: ReadonlyMap<string, ToolInfo>): string[] {
  return (
    calls
      .filter(
        (call) => call.ok && tools.has(call.tool) && !tools.get(call.tool)!.interaction && !tools.get(call.tool)!.agent,
      )
      // A result a person gave (an unknown outcome confirmed) never passed through a worker.
      .filter((call) => call.outcome?.path !== 'confirmed')
      .map((call) => call.id)
  );
}

/**
 * The tools the workflow answers itself. `ask_question` waits, durably and for as long
 * as it takes (or until the answer timeout), for the `answer` update. `converse` delivers its
 * message; the loop then waits for the person's reply once the wave is done.
 */
async function interact(
  tool: ToolInfo,
  callId: string,
  args: Record<string, unknown>,
  gate: HumanGate,
  answerTimeoutSeconds: number | undefined,
): Promise<Pick<ToolCallRecord, 'ok' | 'result' | 'error'>> {
  if (tool.interaction === 'handoff') return handoffCall(tool, args);
  const field = tool.interaction === 'question' ? 'question' : 'message';
  const text = typeof args[field] === 'string' ? (args[field] as string).trim() : '';
  if (!text) return { ok: false, error: `${tool.name} needs a non-empty "${field}" string.` };
  if (tool.interaction === 'conversation') return { ok: true, result: text };
  const answer = await gate.ask(callId, text, answerTimeoutSeconds);
  if (answer === undefined)
    return { ok: true, result: `Nobody answered within ${Math.round(answerTimeoutSeconds!)} seconds.` };
  return { ok: true, result: answer };
}

type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

function parseArguments(text: string): Parsed<Record<string, unknown>> {
  let value: unknown;
  try {
    value = text.trim() === '' ? {} : JSON.parse(text);
  } catch (err) {
    return { ok: false, error: `the arguments are not valid JSON (${(err as Error).message}): ${text.slice(0, 200)}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, error: `the arguments must be a JSON object, got: ${text.slice(0, 200)}` };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

function describeToolFailure(err: unknown): string {
  if (err instanceof ActivityFailure) {
    const cause = err.cause;
    if (cause instanceof ApplicationFailure) return cause.message;
    return cause?.message ?? err.message;
  }
  return err instanceof Error ? err.message : String(err);
}
