import type { Client } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { isRateLimitWait } from '../contract/flow/rate-limit';
import { isStreamedText, type StreamedText } from '../contract/model/streaming';
import { describeFailure } from '../temporal/pending-activity';

/** A run's model call in flight (`runs.modelCall`). */
export interface ModelCallState {
  attempt: number;
  /** The attempts the call has in all (absent: unlimited). */
  maximumAttempts?: number;
  /** Why the attempt before this one failed: `timed out (start-to-close)`, or the failure's message. */
  lastFailure?: string;
  /** The reply so far, while it streams. */
  stream?: StreamedText;
  /**
   * Set while the call waits for the model's rate limit: held at its worker's gate (the endpoint's
   * rate-limit headers, a 429, `WAVELOOP_MODEL_TPM`), with when the gate expects to open (`until`);
   * or not started yet, for `queuedMs`, on a task queue (a rate-limited model queue holds its calls
   * back there: `RunProgress.modelRateLimit`).
   */
  waiting?: { until?: number; queuedMs?: number };
}

/** `temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_SCHEDULED`: scheduled, not started. */
const PENDING_ACTIVITY_STATE_SCHEDULED = 1;

/** How long a call may stay scheduled and not started before a follower counts it as held back. */
export const QUEUED_NOTICE_MS = 2_000;

/**
 * The run's model call in flight, as the server's pending activity tells it: its attempt (of how
 * many), why the attempt before failed, and its reply so far (as the model activity's last
 * heartbeat carried it). Undefined when no model call is in flight.
 */
export async function readModelCall(temporal: Client, workflowId: string): Promise<ModelCallState | undefined> {
  const { raw } = await temporal.workflow.getHandle(workflowId).describe();
  const call = (raw.pendingActivities ?? []).find((activity) => activity.activityType?.name === 'callModel');
  if (!call) return undefined;
  const payloads = call.heartbeatDetails?.payloads;
  const converter = temporal.options.loadedDataConverter;
  const details = payloads?.length ? await decodeFromPayloadsAtIndex(converter, 0, payloads) : undefined;
  const scheduledAt = call.scheduledTime?.seconds ? Number(call.scheduledTime.seconds) * 1000 : undefined;
  const queuedMs =
    call.state === PENDING_ACTIVITY_STATE_SCHEDULED && scheduledAt ? Date.now() - scheduledAt : undefined;
  return {
    attempt: call.attempt ?? 1,
    ...(call.maximumAttempts ? { maximumAttempts: call.maximumAttempts } : {}),
    ...(call.lastFailure ? { lastFailure: describeFailure(call.lastFailure) } : {}),
    ...(isStreamedText(details) ? { stream: details } : {}),
    ...(isRateLimitWait(details) && queuedMs === undefined ? { waiting: { until: details.rateLimitedUntil } } : {}),
    ...(queuedMs !== undefined && queuedMs >= QUEUED_NOTICE_MS ? { waiting: { queuedMs } } : {}),
  };
}
