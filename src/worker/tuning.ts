import type { WorkerOptions } from '@temporalio/worker';
import { STREAM_HEARTBEAT_INTERVAL_MS } from '../contract/activity-options';
import { DEFAULT_SHUTDOWN_GRACE_SECONDS } from '../settings';

/**
 * The worker options a waveloop worker lets you tune (`createWorker({ tuning })`): slots, pollers,
 * cache, eager dispatch. `npm run bench` (BENCHMARKS.md) measures what they change: activity slots
 * bound how many model calls and tools are in flight at once, pollers how fast a wave's tasks are
 * picked up.
 */
export type WorkerTuning = Partial<
  Pick<
    WorkerOptions,
    | 'maxConcurrentActivityTaskExecutions'
    | 'maxCachedWorkflows'
    | 'maxConcurrentWorkflowTaskExecutions'
    | 'maxConcurrentLocalActivityExecutions'
    | 'maxConcurrentActivityTaskPolls'
    | 'maxConcurrentWorkflowTaskPolls'
    | 'maxEagerActivityReservationsPerWorkflowTask'
    | 'maxHeartbeatThrottleInterval'
    | 'nonStickyToStickyPollRatio'
    | 'stickyQueueScheduleToStartTimeout'
    | 'workflowTaskPollerBehavior'
    | 'activityTaskPollerBehavior'
    | 'workflowThreadPoolSize'
    | 'shutdownGraceTime'
  >
>;

/**
 * What every waveloop worker sets unless `tuning` says otherwise. A wave's activities are handed to
 * the worker in the reply to the workflow task that scheduled them (eager dispatch) instead of one
 * poll each: the SDK reserves 3 such slots per workflow task, so a wave of 16 had 13 calls waiting
 * for pollers. Measured by scenario 3 of `npm run bench` (BENCHMARKS.md).
 */
export const DEFAULT_WORKER_TUNING: WorkerTuning = {
  maxEagerActivityReservationsPerWorkflowTask: 64,
  // The SDK sends an activity's heartbeats at most every 0.8 × its heartbeat timeout (8 s for model
  // calls); a streamed reply's text travels in heartbeats, so followers see it grow 4 times a second.
  maxHeartbeatThrottleInterval: STREAM_HEARTBEAT_INTERVAL_MS,
  // A run's next workflow task goes to the queue of the worker that holds it in its cache (its
  // sticky queue); when no poll of that worker takes it in this time, as after the worker was
  // killed, it goes to the task queue every worker polls, and another worker rebuilds the run from
  // its history. The SDK waits 10 s, a stall of every run a dead worker held; a live worker takes
  // its tasks within milliseconds, and scenarios 1–4 of `npm run bench` ran as fast with 2 s.
  stickyQueueScheduleToStartTimeout: '2 seconds',
  // The runs the worker keeps in memory (the workflow cache). A run waiting for a person costs about
  // 0.5 MiB there; past the cache the least recently used runs are evicted, and rebuilt from their
  // history when a decision, a query or an event reaches them. The SDK sizes the cache by the heap
  // (2,310 runs with a 4 GiB heap: 1.9 GiB with 10,000 runs waiting); with 1,000 the worker
  // peaked at 1 GiB with 10,000 waiting (bench scenario 15, docs/production.md).
  maxCachedWorkflows: 1_000,
  // On SIGTERM or SIGINT the worker stops polling and lets the model and tool calls in flight
  // finish for this long before it cancels them (a cancelled call is retried by another worker).
  shutdownGraceTime: DEFAULT_SHUTDOWN_GRACE_SECONDS * 1000,
};

/**
 * Worker options for a worker that keeps about `concurrentRuns` runs going at once (pass the result
 * as `createWorker({ tuning })`). A run has one model call, or one wave of tool calls, in flight at
 * a time, and both are activities that mostly wait on the network: the SDK's 100 activity slots
 * would cap a worker at 100 model calls in flight, whatever its CPU. Every run stays in the
 * workflow cache, so no workflow task replays a history from the start. Measured by scenario 4 of
 * `npm run bench` (BENCHMARKS.md).
 */
export function throughputTuning(
  concurrentRuns: number,
  { localModelCalls = false }: { localModelCalls?: boolean } = {},
): WorkerTuning {
  const runs = Math.max(1, Math.ceil(concurrentRuns));
  const workflowTaskPolls = 10;
  return {
    maxConcurrentActivityTaskExecutions: Math.max(100, 2 * runs),
    maxConcurrentLocalActivityExecutions: Math.max(100, 2 * runs),
    // With `localModelCalls` every run's model call is a local activity that keeps its workflow
    // task, and its slot, until the model answers; while local activities follow one another (model,
    // tools, model…) the task stays open, up to 8 s. Every open workflow-task poll holds a slot too:
    // with only `runs` slots, the last runs waited for the first ones to end (scenario 4 of
    // `npm run bench`: 100 runs at 39 % of the ideal rate, the last starting after 7 s; 54 % with
    // room for the polls). Without `localModelCalls`, more slots than the SDK's 40 only add
    // contention (5 points less at 100 runs).
    ...(localModelCalls
      ? { maxConcurrentWorkflowTaskExecutions: Math.max(40, runs + workflowTaskPolls + Math.ceil(runs / 10)) }
      : {}),
    maxCachedWorkflows: Math.max(1_000, runs + runs / 4),
    maxConcurrentActivityTaskPolls: 20,
    maxConcurrentWorkflowTaskPolls: workflowTaskPolls,
  };
}
