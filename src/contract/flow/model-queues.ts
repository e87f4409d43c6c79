/**
 * Rate-limited model calls (`WAVELOOP_MODEL_RPM`, an agent's `limits.modelRpm`) go to a task queue of
 * their own, which every worker of the run's task queue polls with the limit as the queue's
 * server-side rate (`maxTaskQueueActivitiesPerSecond`): Temporal's matching service then dispatches at
 * most that many of them a minute, whatever the number of workers (docs/flow-control.md).
 */
export interface ModelQueue {
  taskQueue: string;
  /** The most model calls the server starts from this queue in a minute. */
  requestsPerMinute: number;
}

/** A worker's rate-limited model queues: `default` for every run, `agents` for the agents with a limit of their own. */
export interface ModelQueues {
  default?: ModelQueue;
  agents: Readonly<Record<string, ModelQueue>>;
}

/** The model queue of task queue `taskQueue`: `<taskQueue>-model`, or `<taskQueue>-model-<agent>` for an agent's own limit. */
export function modelQueueName(taskQueue: string, agent?: string): string {
  return agent === undefined ? `${taskQueue}-model` : `${taskQueue}-model-${agent}`;
}
