import type { History } from '@temporalio/common/lib/proto-utils';
import { EventType } from './env';

/**
 * Where the time of an iteration goes, read from the event times of run histories (the server's
 * clock): per iteration, on average, how many workflow tasks and activities the server dispatched
 * and how long each waited to be picked up (queue) and took once picked up (worker).
 */
export interface IterationTimeline {
  /** Iterations covered: from each run's first model activity scheduled to its last. */
  iterations: number;
  /** Mean milliseconds from one model activity's scheduling to the next. */
  total: number;
  workflowTasks: number;
  /** Workflow task scheduled → started: dispatch through the transfer queue and matching. */
  workflowTaskQueue: number;
  /** Workflow task started → completed: the worker's activation, its reply, and the server writing it. */
  workflowTaskWorker: number;
  modelActivities: number;
  modelQueue: number;
  /** Model activity started → completed: the HTTP call to the fake model and the report of the result. */
  modelRun: number;
  toolActivities: number;
  toolQueue: number;
  toolRun: number;
  /** Tools that ran as local activities (recorded as markers; their time is inside a workflow task). */
  localActivities: number;
  /** Model calls that ran as local activities (`localModelCalls`), likewise inside a workflow task. */
  localModelCalls: number;
}

type Event = NonNullable<History['events']>[number];

/** Event time in milliseconds, with the server's sub-millisecond part. */
const at = (event: Event) => Number(event.eventTime?.seconds ?? 0) * 1000 + (event.eventTime?.nanos ?? 0) / 1e6;

/** The marker a local activity's result is recorded as (patch markers are others: `core_patch`). */
const LOCAL_ACTIVITY_MARKER = 'core_local_activity';

/** Activities whose type name holds "model" (waveloop's callModel, the integration's invokeModelActivity) are model calls. */
const isModel = (activityType: string) => /model/i.test(activityType);

/** The activity type of a local activity's marker (its `data` detail is the SDK core's own JSON, never encoded). */
function localActivityType(event: Event): string | undefined {
  const marker = event.markerRecordedEventAttributes;
  if (marker?.markerName !== LOCAL_ACTIVITY_MARKER) return undefined;
  const data = marker.details?.data?.payloads?.[0]?.data;
  try {
    return data
      ? (JSON.parse(Buffer.from(data).toString('utf8')) as { activity_type?: string }).activity_type
      : undefined;
  } catch {
    return undefined;
  }
}

/** A model call's place in history: its activity scheduled, or its local activity's marker. */
function isModelCall(event: Event): boolean {
  if (event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)
    return isModel(event.activityTaskScheduledEventAttributes?.activityType?.name ?? '');
  return isModel(localActivityType(event) ?? '');
}

/**
 * The phases (as in IterationTimeline) of every run's window of events, summed and divided by the
 * windows' `count` (iterations or runs). A window is a range of event positions, so a task belongs
 * to it by where it was scheduled, and a local activity's marker by where it was recorded.
 */
function phases(
  histories: History[],
  window: (modelScheduled: number[]) => { from: number; to: number; count: number } | undefined,
): IterationTimeline {
  const sum: Omit<IterationTimeline, 'iterations'> = {
    total: 0,
    workflowTasks: 0,
    workflowTaskQueue: 0,
    workflowTaskWorker: 0,
    modelActivities: 0,
    modelQueue: 0,
    modelRun: 0,
    toolActivities: 0,
    toolQueue: 0,
    toolRun: 0,
    localActivities: 0,
    localModelCalls: 0,
  };
  let count = 0;
  for (const history of histories) {
    const events = history.events ?? [];
    const position = new Map(events.map((e, i) => [Number(e.eventId), i]));
    const modelScheduled = events.flatMap((e, i) => (isModelCall(e) ? [i] : []));
    const span = window(modelScheduled);
    if (!span) continue;
    const inside = (i: number | undefined) => i !== undefined && i >= span.from && i < span.to;
    count += span.count;
    sum.total += at(events[span.to]) - at(events[span.from]);
    for (const [i, event] of events.entries()) {
      const attributes = event.workflowTaskCompletedEventAttributes ?? event.activityTaskCompletedEventAttributes;
      const localType = localActivityType(event);
      if (localType !== undefined && inside(i)) sum[isModel(localType) ? 'localModelCalls' : 'localActivities'] += 1;
      if (
        !attributes ||
        (event.eventType !== EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED &&
          event.eventType !== EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED)
      )
        continue;
      const scheduledAt = position.get(Number(attributes.scheduledEventId));
      const startedAt = position.get(Number(attributes.startedEventId));
      if (!inside(scheduledAt) || startedAt === undefined) continue;
      const [scheduled, started] = [events[scheduledAt!], events[startedAt]];
      const queue = at(started) - at(scheduled);
      const run = at(event) - at(started);
      if (event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) {
        sum.workflowTasks += 1;
        sum.workflowTaskQueue += queue;
        sum.workflowTaskWorker += run;
      } else {
        const model = isModel(scheduled.activityTaskScheduledEventAttributes?.activityType?.name ?? '');
        sum[model ? 'modelActivities' : 'toolActivities'] += 1;
        sum[model ? 'modelQueue' : 'toolQueue'] += queue;
        sum[model ? 'modelRun' : 'toolRun'] += run;
      }
    }
  }
  const per = Object.fromEntries(
    Object.entries(sum).map(([key, value]) => [key, count ? value / count : NaN]),
  ) as typeof sum;
  return { iterations: count, ...per };
}

/** Per iteration: from each run's first model activity scheduled to its last, divided by the iterations between. */
export function iterationTimeline(histories: History[]): IterationTimeline {
  return phases(histories, (model) =>
    model.length < 2 ? undefined : { from: model[0], to: model[model.length - 1], count: model.length - 1 },
  );
}

/**
 * Per run, before its first model call: from the run's start to its first model activity scheduled
 * (the workflow's first tasks and whatever resolves the run). `iterations` counts runs here;
 * "tool activity" means any activity other than a model call.
 */
export function startTimeline(histories: History[]): IterationTimeline {
  return phases(histories, (model) => (model.length === 0 ? undefined : { from: 0, to: model[0], count: 1 }));
}

/**
 * One line of prose: "26.6 ms = 2.0 workflow tasks (queue 1.9 + 6.1 ms each), ...". `what` names the
 * activities other than model calls (tools per iteration; the run's resolution before its first call).
 */
export function describeTimeline(t: IterationTimeline, what: 'tool' | 'start' = 'tool'): string {
  if (t.modelActivities === 0 && t.localModelCalls > 0) {
    const perTask =
      t.workflowTasks > 0
        ? `${(1 / t.workflowTasks).toFixed(1)} iterations per workflow task`
        : 'every iteration inside one workflow task';
    return `model calls and tools ran as local activities, ${perTask}; history records local activities when their workflow task completes, so its event times do not split an iteration`;
  }
  const each = (count: number, queue: number, run: number, name: string) =>
    count > 0
      ? `${count.toFixed(1)} ${name} (queue ${(queue / count).toFixed(1)} + ${(run / count).toFixed(1)} ms each)`
      : undefined;
  const parts = [
    each(t.workflowTasks, t.workflowTaskQueue, t.workflowTaskWorker, 'workflow tasks'),
    each(t.modelActivities, t.modelQueue, t.modelRun, 'model activity'),
    each(t.toolActivities, t.toolQueue, t.toolRun, what === 'tool' ? 'tool activity' : 'other activity'),
    t.localModelCalls > 0
      ? `${t.localModelCalls.toFixed(1)} local-activity model call (inside a workflow task)`
      : undefined,
    t.localActivities > 0
      ? `${t.localActivities.toFixed(1)} ${what === 'tool' ? 'local-activity tool' : 'local activity'} (inside a workflow task)`
      : undefined,
  ].filter(Boolean);
  const accounted = t.workflowTaskQueue + t.workflowTaskWorker + t.modelQueue + t.modelRun + t.toolQueue + t.toolRun;
  return `${t.total.toFixed(1)} ms = ${parts.join(', ')}; ${(t.total - accounted).toFixed(1)} ms between them`;
}
