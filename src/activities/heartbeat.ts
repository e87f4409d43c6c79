import { Context } from '@temporalio/activity';

/**
 * Heartbeats the current activity on a timer while `work` runs, so a worker that dies is noticed
 * within the activity's heartbeat timeout (seconds), not its start-to-close timeout (minutes).
 */
export async function withHeartbeats<T>(work: () => Promise<T>): Promise<T> {
  const context = Context.current();
  const timeoutMs = context.info.heartbeatTimeoutMs;
  if (!timeoutMs) return work();
  context.heartbeat();
  const timer = setInterval(() => context.heartbeat(), Math.max(200, Math.floor(timeoutMs / 3)));
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
