import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { PrepareApprovalInput, ToolCallInput, ToolCallOutput } from '../contract/activity-io';
import { dryRunStub } from '../contract/effects/dry-run';
import { FailureType } from '../contract/errors';
import type { ApprovalPolicy } from '../contract/people/approvals';
import { People } from '../contract/people/people';
import { maskArgs } from '../contract/sensitive';
import type { BlobStore } from '../payloads/blob-store';
import { ToolError, type AnyTool, type ToolContext } from '../tools/define';
import { approvalPolicy, approvalRuleOf, askApprovalRule } from './approval-rule';
import { withHeartbeats } from './heartbeat';
import type { Registry } from './registry';
import { parseToolArguments, registeredTool } from './tool-arguments';
import { resultForTranscript } from './tool-result';
import type { ToolResultCache } from './tool-result-cache';

/**
 * One tool call of a wave. Arguments are validated against the tool's zod schema first (a
 * mismatch is a non-retryable `InvalidToolArguments` the model gets to read); a `ToolError` is
 * non-retryable too; any other error is retried per the tool's retry policy. A result longer than
 * `TOOL_RESULT_MAX_CHARS` reaches the model truncated, with a note (see `resultForTranscript`).
 * With `approvalRule`, the tool's approval rule is asked first, in the same activity, so a call
 * that needs no approval costs nothing more; one that does returns `needsApproval` without running:
 * who may decide it and what they see (`approvalPolicy`). With `mode: 'reconcile'` it runs the
 * tool's `reconcile` instead, with the same context (its idempotency key too): `{ absent: true }`
 * when the effect did not happen. With `mode: 'dryRun'` (a dry run's held-back call) the tool's
 * `dryRun` answers instead, else a stub that says the call was held back, with its arguments.
 */
export function createRunTool({
  registry,
  people = new People(),
  blobStore,
  toolResults,
}: {
  registry: Registry;
  people?: People;
  blobStore?: BlobStore;
  toolResults?: ToolResultCache;
}) {
  return async function runTool(input: ToolCallInput): Promise<ToolCallOutput> {
    const tool = registeredTool(registry, input.name);
    const args = parseToolArguments(tool, input.args);
    if (input.approvalRule) {
      const context = {
        workflowId: input.workflowId,
        agent: input.approvalRule.agent,
        tool: tool.name,
        startedBy: input.startedBy,
      };
      const requirement = await askApprovalRule(approvalRuleOf(registry, context.agent, tool.name), args, context);
      if (requirement) return { needsApproval: await approvalPolicy(requirement, { registry, people, args, context }) };
    }

    const context = Context.current();
    const toolContext = {
      signal: context.cancellationSignal,
      // A local activity (a read tool's call, by default) has no heartbeat to send.
      heartbeat: context.info.isLocal ? () => undefined : (details?: unknown) => context.heartbeat(details),
      idempotencyKey: `${input.workflowId}/${input.toolCallId}`,
      workflowId: input.workflowId,
      toolCallId: input.toolCallId,
      startedBy: input.startedBy,
      ...(input.approvedBy ? { approvedBy: input.approvedBy } : {}),
    };
    const value = await withHeartbeats(() => typedFailures(() => perform(tool, input.mode, args, toolContext)));
    if (input.mode === 'reconcile' && value === undefined) return { absent: true };
    const content =
      editNote(input, tool.sensitive) +
      resultForTranscript(typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null'), blobStore);
    // Kept for the run's next model call on this worker, which then gets only a reference to it.
    const runId = context.info.workflowExecution?.runId;
    if (runId) toolResults?.remember(input.workflowId, runId, input.toolCallId, content);
    return { content };
  };
}

/**
 * Runs `work` (a tool's `execute` or `reconcile`): what it throws becomes a typed failure, a
 * `ToolError` non-retryable, any other error retryable per the tool's policy.
 */
async function typedFailures<T>(work: () => Promise<T> | T): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof ApplicationFailure) throw err;
    const error = err instanceof Error ? err : new Error(String(err));
    throw ApplicationFailure.create({
      type: err instanceof ToolError ? FailureType.ToolError : 'ToolFailed',
      message: error.message,
      nonRetryable: err instanceof ToolError,
      cause: error,
    });
  }
}

/** What the call does: `execute`, or, by `mode`, the tool's `reconcile` or its dry run's answer. */
function perform(tool: AnyTool, mode: ToolCallInput['mode'], args: Record<string, unknown>, context: ToolContext) {
  if (mode === 'reconcile') return reconcileOf(tool)(args, context);
  if (mode === 'dryRun')
    return tool.dryRun ? tool.dryRun(args, context) : dryRunStub(tool.name, maskArgs(args, tool.sensitive));
  return tool.execute(args, context);
}

/** The tool's `reconcile`; a tool without one is a worker out of step with the run, which asked for it. */
function reconcileOf(tool: AnyTool): NonNullable<AnyTool['reconcile']> {
  if (tool.reconcile) return tool.reconcile.bind(tool);
  throw ApplicationFailure.create({
    type: FailureType.ToolError,
    message: `Tool "${tool.name}" has no reconcile on this worker.`,
    nonRetryable: true,
  });
}

/**
 * Tells the model that a person changed the call's arguments before approving it, and to what. The
 * note is part of the call's result, which people see too (the run's waves, its audit record, its
 * span): the tool's `sensitive` values show masked in it, and the tool itself got them whole.
 */
function editNote({ args, originalArgs }: ToolCallInput, sensitive: readonly string[] | undefined): string {
  if (!originalArgs) return '';
  const [now, before] = [maskArgs(args, sensitive), maskArgs(originalArgs, sensitive)];
  return `(A person approved this call with changed arguments: ${JSON.stringify(now)} instead of ${JSON.stringify(before)}.)\n`;
}

/**
 * A call that waits for approval whatever its arguments (`toolsToApprove`, a rule of `true` or an
 * object): who may decide it and what they see, as `runTool` settles it for a rule that asked for
 * approval. A rule that is a function is asked too, for its approvers and reason.
 */
export function createPrepareApproval({ registry, people = new People() }: { registry: Registry; people?: People }) {
  return async function prepareApproval(input: PrepareApprovalInput): Promise<ApprovalPolicy> {
    const tool = registeredTool(registry, input.name);
    const context = { workflowId: input.workflowId, agent: input.agent, tool: tool.name, startedBy: input.startedBy };
    let args = input.args;
    try {
      args = parseToolArguments(tool, input.args);
    } catch {
      // The call's arguments do not suit the tool: it waits all the same, and fails when approved.
    }
    const requirement = (await askApprovalRule(approvalRuleOf(registry, input.agent, tool.name), args, context)) ?? {};
    return approvalPolicy(requirement, { registry, people, args, context });
  };
}
