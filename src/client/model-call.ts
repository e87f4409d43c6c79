import type { Client } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { isStreamedText, type StreamedText } from '../contract/streaming';
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
}

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
  return {
    attempt: call.attempt ?? 1,
    ...(call.maximumAttempts ? { maximumAttempts: call.maximumAttempts } : {}),
    ...(call.lastFailure ? { lastFailure: describeFailure(call.lastFailure) } : {}),
    ...(isStreamedText(details) ? { stream: details } : {}),
  };
}
