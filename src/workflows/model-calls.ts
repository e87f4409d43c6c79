import {
  ActivityFailure,
  ApplicationFailure,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  workflowInfo,
} from '@temporalio/workflow';
import type { createActivities } from '../activities';
import type { ModelCallInput, ModelCallOutput, ResolvedRun, SummarizeOutput } from '../contract/activity-io';
import {
  DEFAULT_MODEL_ACTIVITY_OPTIONS,
  LOCAL_MODEL_ACTIVITY_OPTIONS,
  RESOLVE_RUN_ACTIVITY_OPTIONS,
} from '../contract/activity-options';
import { FailureType } from '../contract/errors';
import { withPriority } from '../contract/flow/priority';
import { usageReport, type Usage } from '../contract/model/usage';
import { modelSummary } from '../contract/summaries';
import type { Transcript } from './transcript';

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
 * One model call of `run`: each attempt limited to its `modelTimeoutSeconds` and retried per its
 * `modelRetry`; with `localModelCalls` it runs as a local activity; its `priority` places it in the
 * task queue (a local activity runs in the workflow task, which has the workflow's); its
 * `modelQueue` sends it to a rate-limited model queue instead of the run's own. Not an async
 * function: the SDK captures a stack trace for every promise workflow code creates, and the loop
 * makes many. Retries that run out fail the run as `ModelUnavailable`, with the last attempt's
 * failure; a non-retryable cause keeps its type.
 */
export function askModel(
  request: ModelCallInput,
  run: Pick<ResolvedRun, 'settings' | 'modelRetry' | 'priority' | 'modelQueue'>,
): Promise<ModelCallOutput> {
  const { settings, modelRetry: retry, priority, modelQueue } = run;
  const taskQueue = modelQueue?.taskQueue;
  const summary = modelSummary(request.iteration);
  const options = { summary, startToCloseTimeout: settings.modelTimeoutSeconds * 1000, retry };
  const heartbeatTimeout = settings.heartbeatSeconds * 1000;
  const call = settings.localModelCalls
    ? callModelLocally.executeWithOptions({ ...LOCAL_MODEL_ACTIVITY_OPTIONS, ...options }, [request])
    : callModel.executeWithOptions(
        {
          ...DEFAULT_MODEL_ACTIVITY_OPTIONS,
          ...options,
          heartbeatTimeout,
          ...withPriority(priority),
          ...(taskQueue && { taskQueue }),
        },
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
  run: Pick<ResolvedRun, 'settings' | 'priority' | 'modelQueue'>,
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
        model: run.settings.model,
        ...(run.settings.maxContextTokens ? { maxChars: run.settings.maxContextTokens * 2 } : {}),
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

/** A run's failure, with what the run used in its details (a goal tree's parent counts it). */
export function withUsageReport(err: unknown, usage: Usage): unknown {
  if (!(err instanceof ApplicationFailure) || usage.totalTokens === 0 || err.details?.length) return err;
  return ApplicationFailure.create({
    type: err.type ?? undefined,
    message: err.message,
    nonRetryable: err.nonRetryable ?? undefined,
    cause: err.cause,
    details: [usageReport(usage)],
  });
}

/**
 * The model call of `iteration` of `run`: its model, tools and planner, and the transcript as the
 * call sends it (`Transcript.slice`: whole for a local call, else what the worker has not seen).
 */
export function modelRequest(
  run: ResolvedRun,
  transcript: Transcript,
  iteration: number,
  overrides: Partial<ModelCallInput>,
): ModelCallInput {
  const { workflowId, runId } = workflowInfo();
  const { model, planner, maxOutputTokens, toolCallText } = run.settings;
  return {
    workflowId,
    runId,
    model,
    tools: run.tools.map((tool) => tool.name),
    planner,
    iteration,
    maxOutputTokens,
    toolCallText,
    transcript: transcript.slice(run.settings.localModelCalls),
    ...overrides,
  };
}
