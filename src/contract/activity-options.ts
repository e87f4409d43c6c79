import type { ActivityOptions, LocalActivityOptions, RetryPolicy } from '@temporalio/common';
import { SETTINGS } from './settings/declarations';

/**
 * Behaviour-altering defaults, in one place.
 */

/**
 * How a run's model call is retried: `modelAttempts` (8) attempts, from 1 s, doubling, at most 1 min apart, so a model
 * endpoint that keeps failing (or cannot be reached) fails the run after about 2 minutes (1 + 2 + 4
 * + 8 + 16 + 32 + 60 s between the attempts). A worker may set its own (`modelRetry`).
 */
export const DEFAULT_MODEL_RETRY: RetryPolicy = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '1 minute',
  maximumAttempts: SETTINGS.modelAttempts.default,
};

/**
 * Heartbeat timeout of model and tool activities (a tool's capped by its own timeout), unless the
 * worker's `heartbeatSeconds` says otherwise. The activity heartbeats every third of it while it
 * runs, so a call cut off by a dead worker is retried about that long after it was last heard of,
 * rather than after its whole timeout (minutes). A worker whose event loop stalls for two thirds of
 * it sees a live call tried again (a `write` tool's attempt then goes through its reconcile:
 * docs/effects.md#unknown-outcomes): at 3 s, a worker process just started did, under a test's
 * load. Scenario 6 of `npm run bench` measures what it costs a dead worker's runs.
 */
export const HEARTBEAT_TIMEOUT_MS = SETTINGS.heartbeatSeconds.default * 1000;

/** The heartbeat timeout of a tool's call or its undo: the worker's (`heartbeatMs`), at most the call's own timeout. */
export function toolHeartbeatTimeout(startToCloseMs: number, heartbeatMs: number): number {
  return Math.min(startToCloseMs, heartbeatMs);
}

/**
 * One model call. The activity heartbeats while it waits for the endpoint (every third of
 * `heartbeatTimeout`, the worker's `heartbeatSeconds`), so a worker that dies mid-call is noticed
 * within seconds and the call is retried on another worker then (the crash matrix,
 * `npm run test:chaos`, measures it), however long the call itself may take (a run's
 * `modelTimeoutSeconds` overrides `startToCloseTimeout`).
 * Non-retryable model failures (400/401/403/404/422) stop the retries; 429 waits for `retry-after`.
 */
export const DEFAULT_MODEL_ACTIVITY_OPTIONS: ActivityOptions = {
  startToCloseTimeout: SETTINGS.modelTimeoutSeconds.default * 1000,
  heartbeatTimeout: HEARTBEAT_TIMEOUT_MS,
  retry: DEFAULT_MODEL_RETRY,
};

/**
 * One model call run as a local activity (`localModelCalls`): the same timeout and retries, no
 * heartbeat (the SDK keeps the workflow task alive while it runs).
 */
export const LOCAL_MODEL_ACTIVITY_OPTIONS: LocalActivityOptions = {
  startToCloseTimeout: DEFAULT_MODEL_ACTIVITY_OPTIONS.startToCloseTimeout,
  retry: DEFAULT_MODEL_ACTIVITY_OPTIONS.retry,
};

/** Resolving the agent profile and the tool list at the start of a run: local, fast, and pure. */
export const RESOLVE_RUN_ACTIVITY_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 5 },
};

/**
 * Reading a forked run's starting transcript from the source run (`resolveFork`): its history and
 * its `transcript` query. Retried when the server cannot be reached; a refused fork is not.
 */
export const RESOLVE_FORK_ACTIVITY_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 5 },
};

/** Checking a candidate final answer against the run's output schema (`checkOutput`): local, fast, and pure. */
export const CHECK_OUTPUT_ACTIVITY_OPTIONS: LocalActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 3 },
};

/** Tool defaults; each tool may override them (`timeoutSeconds`, `retry`). */
export const DEFAULT_TOOL_TIMEOUT_SECONDS = 60;
export const DEFAULT_TOOL_RETRY = {
  maximumAttempts: 3,
  initialIntervalSeconds: 0.5,
  backoffCoefficient: 2,
  maximumIntervalSeconds: 10,
} as const;

/**
 * The most characters of one tool result the model sees (and the history records); a longer result
 * is cut with a note, and kept whole in the blob store when there is one (`resultForTranscript`).
 */
export const TOOL_RESULT_MAX_CHARS = 64 * 1024;

/** How often a streaming model call's heartbeats (carrying its text so far) reach the server at most. */
export const STREAM_HEARTBEAT_INTERVAL_MS = 250;

/**
 * A running run's `WaveloopIteration` and `WaveloopTokens` lag by at most this much (its
 * `WaveloopStatus` never does): every upsert of search attributes is a history event and a write to
 * the visibility store, and one every iteration cost about a tenth of the CPU of 100 runs at once
 * (scenario 4 of `npm run bench`).
 */
export const SEARCH_ATTRIBUTE_REFRESH_MS = 10_000;

/**
 * Posting a webhook to one URL (`postWebhook`): each attempt has 30 s, then it is tried again, from
 * 1 s, doubling, at most 10 minutes apart, for up to 3 days, until the receiver answers 2xx. A 4xx
 * answer other than 408 and 429 ends the delivery at once (a non-retryable failure, logged).
 */
export const WEBHOOK_ACTIVITY_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '3 days',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 minutes' },
};

/**
 * The scoring of an eval's case (`scoreEvalCase`): built-in scorers take no time, custom scorers and
 * the model judge may call out, so each attempt may take two minutes, three attempts in all; it
 * heartbeats, so one on a worker that dies is tried again within 10 s. A scorer that throws scores
 * its case as failed, it does not fail the eval.
 */
export const SCORE_CASE_ACTIVITY_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 3 },
};
