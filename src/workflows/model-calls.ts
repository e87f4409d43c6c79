import type { Priority } from '@temporalio/common';
import {
  ActivityFailure,
  ApplicationFailure,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  workflowInfo,
} from '@temporalio/workflow';
import type { createActivities } from '../activities';
import type {
  ModelCallInput,
  ModelCallOutput,
  ModelCallPolicy,
  ResolvedRun,
  SummarizeOutput,
} from '../contract/activity-io';
import {
  DEFAULT_MODEL_ACTIVITY_OPTIONS,
  LOCAL_MODEL_ACTIVITY_OPTIONS,
  RESOLVE_RUN_ACTIVITY_OPTIONS,
} from '../contract/activity-options';
import { FailureType } from '../contract/errors';
import { withPriority } from '../contract/flow/priority';
import { modelSummary } from '../contract/summaries';

type Activities = ReturnType<typeof createActivities>;

const { callModel, summarizeTranscript } = proxyActivities<Activities>(DEFAULT_MODEL_ACTIVITY_OPTIONS);
const { callModel: callModelLocally, resolveRun: resolveRunLocally } =
  proxyLocalActivities<Activities>(LOCAL_MODEL_ACTIVITY_OPTIONS);

/**
 * The agent profile merged with the run's input, validated on the worker (validation needs zod,
 * which workflow code does not load: src/workflows/lazy.ts). A local activity: a lookup in the
 * worker's registry needs no trip through the task queue. Bad input fails the run as `InvalidInput`.
 */
export async function resolveRun(input: unknown): Promise<ResolvedRun> {
  try {
    return await resolveRunLocally.executeWithOptions(
      { ...RESOLVE_RUN_ACTIVITY_OPTIONS, summary: 'resolve agent and tools' },
      [input],
    );
  } catch (err) {
    throw asRunFailure(err, 'Resolving the agent failed');
  }
}

/**
 * One model call, each attempt limited to `timeoutMs` and retried per `retry`; `local` runs it as
 * a local activity (`localModelCalls`); `priority` places it in the task queue (a local activity
 * runs in the workflow task, which has the workflow's); `taskQueue` sends it to a rate-limited
 * model queue (`ResolvedRun.modelQueue`) instead of the run's own. Not an async function: the SDK captures a stack trace for
 * every promise workflow code creates, and the loop makes many. Retries that run out fail the run
 * as `ModelUnavailable`, with the last attempt's failure; a non-retryable cause keeps its type.
 */
export function askModel(
  request: ModelCallInput,
  {
    local,
    timeoutMs,
    retry,
    priority,
    taskQueue,
  }: ModelCallPolicy & { local: boolean; priority?: Priority; taskQueue?: string },
): Promise<ModelCallOutput> {
  const summary = modelSummary(request.iteration);
  const options = { summary, startToCloseTimeout: timeoutMs, retry };
  const call = local
    ? callModelLocally.executeWithOptions({ ...LOCAL_MODEL_ACTIVITY_OPTIONS, ...options }, [request])
    : callModel.executeWithOptions(
        { ...DEFAULT_MODEL_ACTIVITY_OPTIONS, ...options, ...withPriority(priority), ...(taskQueue && { taskQueue }) },
        [request],
      );
  return call.catch((err: unknown) => {
    throw asRunFailure(
      err,
      `The model call of iteration ${request.iteration} kept failing`,
      FailureType.ModelUnavailable,
    );
  });
}

/**
 * The model's summary of messages [from, to) of this run's transcript (read through its query);
 * `label` names the activity in the history. The summary's own request is clipped to fit the
 * context window. Under a model rate limit it goes to the run's model queue, like its model calls.
 */
export function summarize(
  label: string,
  range: { from: number; to: number },
  run: Pick<ResolvedRun, 'model' | 'contextTokens' | 'priority' | 'modelQueue'>,
): Promise<SummarizeOutput> {
  const { workflowId, runId } = workflowInfo();
  return summarizeTranscript.executeWithOptions(
    {
      ...DEFAULT_MODEL_ACTIVITY_OPTIONS,
      summary: `${label} · summarize ${range.to - range.from} messages`,
      ...withPriority(run.priority),
      ...(run.modelQueue && { taskQueue: run.modelQueue.taskQueue }),
    },
    [
      {
        workflowId,
        runId,
        ...range,
        model: run.model,
        ...(run.contextTokens ? { maxChars: run.contextTokens * 2 } : {}),
      },
    ],
  );
}

/** Whether a model call failed because the transcript no longer fits the model's context window. */
export function isContextExceeded(err: unknown): boolean {
  return err instanceof ApplicationFailure && err.type === FailureType.ModelContextExceeded;
}

/**
 * Turns an activity failure into the run's failure: a non-retryable cause keeps its type and
 * message (say `ModelAuthentication`); retries that ran out become `fallbackType`. A cancelled run
 * ends as cancelled, not as failed.
 */
export function asRunFailure(err: unknown, context: string, fallbackType = 'ActivityFailed'): unknown {
  if (!(err instanceof ActivityFailure) || isCancellation(err)) return err;
  const cause = err.cause;
  if (cause instanceof ApplicationFailure && cause.nonRetryable) {
    return ApplicationFailure.create({
      type: cause.type ?? undefined,
      message: cause.message,
      nonRetryable: true,
      cause,
    });
  }
  return ApplicationFailure.create({
    type: fallbackType,
    message: `${context}: ${cause?.message ?? err.message}`,
    nonRetryable: true,
    cause: err,
  });
}
