import type { Duration, Priority } from '@temporalio/common';
import {
  ActivityFailure,
  ApplicationFailure,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  sleep,
  TimeoutFailure,
} from '@temporalio/workflow';
import type { createActivities } from '../activities';
import type { ToolCallInput, ToolCallOutput, ToolInfo } from '../contract/activity-io';
import { toolHeartbeatTimeout } from '../contract/activity-options';
import { unknownOutcomeLine, type CallOutcome } from '../contract/effects/outcome';
import { FailureType } from '../contract/errors';
import { withPriority } from '../contract/flow/priority';
import type { OutcomeGate } from './outcome-gate';
import type { Slots } from './slots';

type Activities = ReturnType<typeof createActivities>;

const { runTool } = proxyActivities<Activities>({ startToCloseTimeout: '1 minute' });
/** Tools declared `localActivity` (cheap, read-only) run in the workflow's worker, without a trip through the server. */
const { runTool: runToolLocally } = proxyLocalActivities<Activities>({ startToCloseTimeout: '1 minute' });

/** Tool failures that say retrying cannot help: the call fails at once. */
const FINAL_FAILURES: string[] = [FailureType.InvalidToolArguments, FailureType.ToolError];

/** What one call's attempts need besides the call: its wave's slots and place, and its run's outcome gate. */
export interface AttemptContext {
  slots: Slots;
  priority: Priority | undefined;
  /** The run's `heartbeatSeconds`, in ms: how long an attempt may go unheard of (at most the tool's timeout). */
  heartbeatMs: number;
  gate: OutcomeGate;
  iteration: number;
  /** Who may settle the call's outcome: its approval's approvers (none: anyone). */
  approvers?: { label: string; names: string[] };
  /** Set when an attempt may have acted, to how the call was settled (the call's record keeps it). */
  outcome?: CallOutcome;
}

/** A call a person gave up on after an attempt that may have acted: it fails with this message. */
export class GivenUp extends Error {
  override name = 'GivenUp';
}

/**
 * Runs one call's tool on a worker, holding a wave slot only while an activity runs. A `read` or
 * `idempotent` tool (and any `localActivity` tool) is one activity retried by Temporal per the tool's
 * policy. A `write` tool's activity has one attempt, and the workflow retries it itself, so an
 * attempt that may have acted is told apart from one that failed (docs/effects.md#unknown-outcomes):
 * - a failure the tool threw says nothing was done: it is retried per the tool's policy (a durable
 *   timer between attempts, the same backoff), unless it is a `ToolError` or bad arguments;
 * - an attempt that timed out, or whose worker stopped heartbeating, may have acted: the tool's
 *   `reconcile` is asked (the call completes with what it found, or runs again while attempts are
 *   left); without one, or when it fails, the call waits for a person to say it happened, to run
 *   it again, or to give up (`GivenUp`).
 */
export async function runToolCall(
  tool: ToolInfo,
  input: ToolCallInput,
  summary: string,
  context: AttemptContext,
): Promise<ToolCallOutput> {
  const { slots } = context;
  if (tool.effect !== 'write' || tool.localActivity)
    return slots.run(() => activity(tool, input, summary, context, retryPolicy(tool)));
  const { retry } = tool;
  let allowed = retry.maximumAttempts > 0 ? retry.maximumAttempts : Number.POSITIVE_INFINITY;
  let label = summary;
  for (let attempt = 1; ; attempt++) {
    try {
      return await slots.run(() => activity(tool, input, label, context, { maximumAttempts: 1 }));
    } catch (err) {
      if (isCancellation(err)) throw err;
      const why = cutOff(err, tool);
      if (why === undefined) {
        if (isFinal(err) || attempt >= allowed) throw err;
        await sleep(backoff(tool, attempt, err));
        continue;
      }
      const settled = await settle(tool, input, summary, why, context);
      context.outcome = settled.outcome;
      if (settled.givenUp) throw new GivenUp(settled.givenUp);
      if (settled.output) return settled.output;
      if (settled.outcome.by === 'reconcile') {
        if (attempt >= allowed) throw err;
        await sleep(backoff(tool, attempt, err));
      } else allowed = Math.max(allowed, attempt + 1);
      label = `${summary} · again after an unknown outcome`;
    }
  }
}

/**
 * A dry run's held-back call (`mode: 'dryRun'`): one activity, retried by Temporal per the tool's
 * policy, in which the tool's `dryRun` answers (or a stub says the call was held back). It acts on
 * nothing, whatever the tool's effect.
 */
export function runHeldBack(
  tool: ToolInfo,
  input: ToolCallInput,
  summary: string,
  context: AttemptContext,
): Promise<ToolCallOutput> {
  return context.slots.run(() => activity(tool, input, `${summary} · dry run`, context, retryPolicy(tool)));
}

/** After an attempt that may have acted: what the tool's `reconcile`, else a person, says of it. */
async function settle(
  tool: ToolInfo,
  input: ToolCallInput,
  summary: string,
  why: string,
  context: AttemptContext,
): Promise<{ output?: ToolCallOutput; givenUp?: string; outcome: CallOutcome }> {
  const { slots, gate, iteration, approvers } = context;
  let reason = why;
  if (tool.reconcile) {
    try {
      const found = await slots.run(() =>
        activity(tool, { ...input, mode: 'reconcile' }, `${summary} · reconcile`, context, retryPolicy(tool)),
      );
      const outcome = { by: 'reconcile', at: new Date().toISOString(), why };
      if ('content' in found) return { output: found, outcome: { path: 'reconciled', ...outcome } };
      return { outcome: { path: 'rerun', ...outcome } };
    } catch (err) {
      if (isCancellation(err)) throw err;
      reason = `${why}; its reconcile failed: ${failureMessage(err)}`;
    }
  }
  const { name, args } = input;
  const decided = await gate.ask({
    callId: input.toolCallId,
    tool: name,
    args,
    iteration,
    why: reason,
    ...(approvers ? { approvers } : {}),
    ...(tool.sensitive ? { sensitive: tool.sensitive } : {}),
  });
  const outcome = { by: decided.by, at: decided.at, why: reason };
  if (decided.choice === 'happened') {
    const content = decided.result ?? `${decided.by} confirmed that ${name} ran; its result is not known.`;
    return { output: { content }, outcome: { path: 'confirmed', ...outcome } };
  }
  if (decided.choice === 'again') return { outcome: { path: 'rerun', ...outcome } };
  const givenUp = `${unknownOutcomeLine(name, args)} (${reason}); ${decided.by} gave up on it, and it was not run again.`;
  return { givenUp, outcome: { path: 'given_up', ...outcome } };
}

/** One `runTool` activity (local for `localActivity` tools). */
function activity(
  tool: ToolInfo,
  input: ToolCallInput,
  summary: string,
  { priority, heartbeatMs }: Pick<AttemptContext, 'priority' | 'heartbeatMs'>,
  retry: ReturnType<typeof retryPolicy> | { maximumAttempts: 1 },
): Promise<ToolCallOutput> {
  const startToCloseTimeout = tool.timeoutSeconds * 1000;
  if (tool.localActivity) return runToolLocally.executeWithOptions({ summary, startToCloseTimeout, retry }, [input]);
  const heartbeatTimeout = toolHeartbeatTimeout(startToCloseTimeout, heartbeatMs);
  return runTool.executeWithOptions(
    { summary, startToCloseTimeout, heartbeatTimeout, retry, ...withPriority(priority) },
    [input],
  );
}

/** The tool's retry policy, as Temporal takes it. */
function retryPolicy(tool: ToolInfo) {
  return {
    maximumAttempts: tool.retry.maximumAttempts,
    initialInterval: tool.retry.initialIntervalSeconds * 1000,
    backoffCoefficient: tool.retry.backoffCoefficient,
    maximumInterval: tool.retry.maximumIntervalSeconds * 1000,
    nonRetryableErrorTypes: FINAL_FAILURES,
  };
}

/** How an attempt that may have acted ended: it timed out, or its worker stopped heartbeating; else undefined. */
function cutOff(err: unknown, tool: ToolInfo): string | undefined {
  if (!(err instanceof ActivityFailure) || !(err.cause instanceof TimeoutFailure)) return undefined;
  if (err.cause.timeoutType === 'START_TO_CLOSE') return `its attempt timed out after ${tool.timeoutSeconds} s`;
  if (err.cause.timeoutType === 'HEARTBEAT') return 'its worker stopped heartbeating during the attempt';
  return undefined;
}

/** A failure retrying cannot fix: the tool said so (`ToolError`, a non-retryable failure), or its arguments were wrong. */
function isFinal(err: unknown): boolean {
  const cause = err instanceof ActivityFailure ? err.cause : undefined;
  return cause instanceof ApplicationFailure && (cause.nonRetryable || FINAL_FAILURES.includes(cause.type ?? ''));
}

/** The wait before attempt `attempt + 1`: the failure's own `nextRetryDelay`, else the tool's backoff. */
function backoff(tool: ToolInfo, attempt: number, err: unknown): Duration {
  const cause = err instanceof ActivityFailure ? err.cause : undefined;
  if (cause instanceof ApplicationFailure && cause.nextRetryDelay != null) return cause.nextRetryDelay;
  const { initialIntervalSeconds, backoffCoefficient, maximumIntervalSeconds } = tool.retry;
  return Math.min(initialIntervalSeconds * backoffCoefficient ** (attempt - 1), maximumIntervalSeconds) * 1000;
}

/** What went wrong, in a line. */
export function failureMessage(err: unknown): string {
  if (err instanceof ActivityFailure) return err.cause?.message ?? err.message;
  return err instanceof Error ? err.message : String(err);
}
