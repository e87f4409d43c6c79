import { Worker, type NativeConnection, type WorkerOptions } from '@temporalio/worker';
import type { AgentDefinition } from '../agents/define';
import { modelQueueName, type ModelQueue, type ModelQueues } from '../contract/flow/model-queues';
import type { WorkerTuning } from './tuning';

/**
 * The rate-limited model queues of a worker of `taskQueue`: `<taskQueue>-model` when the worker has
 * `requestsPerMinute` (`WAVELOOP_MODEL_RPM`), and `<taskQueue>-model-<agent>` for each agent with a
 * `modelRpm` of its own. Undefined when there is none.
 */
export function modelQueuesOf(
  taskQueue: string,
  requestsPerMinute: number | undefined,
  agents: readonly AgentDefinition[],
): ModelQueues | undefined {
  const own = agents.filter((agent) => agent.modelRpm !== undefined);
  if (requestsPerMinute === undefined && own.length === 0) return undefined;
  return {
    ...(requestsPerMinute === undefined
      ? {}
      : { default: { taskQueue: modelQueueName(taskQueue), requestsPerMinute } }),
    agents: Object.fromEntries(
      own.map((agent) => [
        agent.name,
        { taskQueue: modelQueueName(taskQueue, agent.name), requestsPerMinute: agent.modelRpm! },
      ]),
    ),
  };
}

/** Every queue of `queues`, once each. */
export function allModelQueues(queues: ModelQueues | undefined): ModelQueue[] {
  if (!queues) return [];
  return [...(queues.default ? [queues.default] : []), ...Object.values(queues.agents)];
}

/** The worker options of the tuning that concern activities (a model queue's worker runs no workflow). */
const ACTIVITY_TUNING = [
  'maxConcurrentActivityTaskExecutions',
  'maxConcurrentActivityTaskPolls',
  'activityTaskPollerBehavior',
  'maxHeartbeatThrottleInterval',
  'shutdownGraceTime',
] as const;

/**
 * The share of a model queue's limit that its workers ask the server for. The server's limiter lets
 * a few calls through at once (when it starts, and when a worker sends its rate again), so a 60 s
 * window at the full rate saw 123 requests for a limit of 120, and the endpoint refused 5 (bench
 * scenario 11); at 95 % a window stays under the limit.
 */
export const MODEL_RATE_HEADROOM = 0.95;

/**
 * One activity worker for a model queue: the model-calling activities only, polling `queue` with
 * `MODEL_RATE_HEADROOM` of its rate as `maxTaskQueueActivitiesPerSecond`, which the server holds for
 * the whole task queue (every worker polling it sends the same rate: the last poll's value is the
 * one the server keeps).
 */
export function createModelQueueWorker(
  queue: ModelQueue,
  options: Pick<WorkerOptions, 'dataConverter' | 'interceptors' | 'workerDeploymentOptions'> & {
    connection: NativeConnection;
    namespace: string;
    activities: Record<string, (...args: never[]) => Promise<unknown>>;
    tuning: WorkerTuning;
  },
): Promise<Worker> {
  const tuning = Object.fromEntries(
    ACTIVITY_TUNING.flatMap((key) => (key in options.tuning ? [[key, options.tuning[key]]] : [])),
  );
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    dataConverter: options.dataConverter,
    interceptors: options.interceptors,
    taskQueue: queue.taskQueue,
    activities: options.activities,
    maxTaskQueueActivitiesPerSecond: (queue.requestsPerMinute / 60) * MODEL_RATE_HEADROOM,
    ...(options.workerDeploymentOptions && { workerDeploymentOptions: options.workerDeploymentOptions }),
    ...tuning,
  });
}

/**
 * `main` running `companions` along: they start with its `run` and stop with it (its shutdown, or
 * the end of `runUntil`); a companion that fails stops `main` too, with that failure.
 */
export function withCompanions(main: Worker, companions: readonly Worker[]): Worker {
  if (companions.length === 0) return main;
  const run = main.run.bind(main);
  main.run = async () => {
    let failure: unknown;
    const others = companions.map((companion) =>
      companion.run().catch((err: unknown) => {
        failure ??= err;
        if (main.getState() === 'RUNNING') main.shutdown();
      }),
    );
    try {
      await run();
    } finally {
      for (const companion of companions) if (companion.getState() === 'RUNNING') companion.shutdown();
      await Promise.all(others);
    }
    if (failure) throw failure;
  };
  return main;
}
