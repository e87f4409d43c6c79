import { temporal } from '@temporalio/proto';

type Failure = temporal.api.failure.v1.IFailure;

/**
 * A pending activity's last failure (`describe()`'s `pendingActivities[].lastFailure`) in a few
 * words: the timeout that cut the attempt (`timed out (start-to-close)`), or the failure's message
 * with its cause's.
 */
export function describeFailure(failure: Failure): string {
  const timeout = failure.timeoutFailureInfo?.timeoutType;
  if (timeout !== undefined && timeout !== null) {
    const kind = temporal.api.enums.v1.TimeoutType[timeout]
      ?.replace('TIMEOUT_TYPE_', '')
      .toLowerCase()
      .replace(/_/g, '-');
    return `timed out (${kind ?? 'unknown timeout'})`;
  }
  const message = failure.message || 'failed';
  return failure.cause?.message ? `${message}: ${failure.cause.message}` : message;
}

/** Why the attempt before the current one of activity `activityId` failed, from the run's description. */
export function previousFailure(
  description: { pendingActivities?: temporal.api.workflow.v1.IPendingActivityInfo[] | null },
  activityId: string,
): string | undefined {
  const activity = description.pendingActivities?.find((pending) => pending.activityId === activityId);
  return activity?.lastFailure ? describeFailure(activity.lastFailure) : undefined;
}
