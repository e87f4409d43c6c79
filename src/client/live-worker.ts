import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

/**
 * How recently a worker must have polled to count as live: the window the Temporal server itself
 * uses to tell whether a poller is still there (70 s in its matching service, "a little over the
 * max time a poller should be kept waiting": a long poll lasts up to a minute). The server lists a
 * poller for 5 minutes after its last poll, so a listed poller alone does not make a live worker.
 */
export const LIVE_POLLER_WINDOW_MS = 70_000;

/** Per client and task queue, when a worker was last seen polling it (epoch ms), as the server listed it. */
const lastSeen = new WeakMap<Client, Map<string, number>>();

/**
 * Whether a worker polls `taskQueue` for workflow tasks: the task queue's pollers as the server
 * lists them (DescribeTaskQueue), one of them seen within `LIVE_POLLER_WINDOW_MS`. An idle worker
 * keeps one long poll open for up to a minute, and the server records a poll when it starts and
 * when it ends, so a live worker's last access is at most about a minute old. A worker that has
 * stopped still counts until the window has passed. The client remembers the newest poll it was
 * told of, and answers from it without asking while that poll is inside the window (the server
 * would list it, or a newer one); it asks again once it is not. `WaveloopClient.hasLiveWorker`.
 */
export async function hasLiveWorker(client: Client, taskQueue: string): Promise<boolean> {
  const seen = lastSeen.get(client) ?? new Map<string, number>();
  lastSeen.set(client, seen);
  if (Date.now() - (seen.get(taskQueue) ?? 0) < LIVE_POLLER_WINDOW_MS) return true;
  const { TaskQueueKind, TaskQueueType } = temporal.api.enums.v1;
  const response = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: taskQueue, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  const newest = Math.max(
    0,
    ...(response.pollers ?? []).map((poller) => {
      const seconds = Number(poller.lastAccessTime?.seconds ?? 0);
      return seconds * 1000 + Math.floor((poller.lastAccessTime?.nanos ?? 0) / 1e6);
    }),
  );
  seen.set(taskQueue, newest);
  return Date.now() - newest < LIVE_POLLER_WINDOW_MS;
}
