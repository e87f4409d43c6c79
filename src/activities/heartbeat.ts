import { Context } from '@temporalio/activity';

/**
 * Heartbeats the current activity on a timer while `work` runs, so a worker that dies is noticed
 * within the activity's heartbeat timeout (seconds), not its start-to-close timeout (minutes).
 * `details`, when given, says what every heartbeat carries (a streamed reply so far): a heartbeat
 * replaces the details of the one before, so the timer must not send empty ones over them.
 */
export async function withHeartbeats<T>(work: () => Promise<T>, details?: () => unknown): Promise<T> {
  const context = Context.current();
  const timeoutMs = context.info.heartbeatTimeoutMs;
  if (!timeoutMs) return work();
  // No heartbeat right at the start: the timeout counts from then anyway, and every heartbeat is a
  // call to the server and a write of the run's state there, so calls that end within a third of
  // the timeout (most tool calls) make none.
  const beat = () => context.heartbeat(details?.());
  const timer = setInterval(beat, Math.max(200, Math.floor(timeoutMs / 3)));
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
