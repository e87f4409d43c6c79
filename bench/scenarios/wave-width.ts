import type { History } from '@temporalio/common/lib/proto-utils';
import { goalFor } from '../../test/support/fake-model';
import type { BenchEnv } from '../support/env';
import type { ScenarioResult } from '../support/report';
import { median } from '../support/stats';
import { runId, runLoops } from '../support/waveloop';

const TOOL_MS = 100;

export interface WaveWidthSizes {
  /** Runs started at once. */
  runs: number;
  /** Tool calls in each run's one wave. */
  calls: number;
  /** The runs' `maxParallelTools`. */
  width: number;
}

/**
 * `maxParallelTools`: `runs` runs at once on one worker, each with one wave of `calls` tool calls of
 * 100 ms, with `maxParallelTools: width`. The most tool activities in flight at once in a run is read
 * from its history: `runTool` activities scheduled and not yet closed, event by event.
 */
export async function waveWidth(env: BenchEnv, sizes: WaveWidthSizes): Promise<ScenarioResult> {
  const { runs, calls, width } = sizes;
  const { worker, taskQueue } = await env.worker();
  const ids = Array.from({ length: runs }, () => runId('width'));
  const ended = await worker.runUntil(() =>
    runLoops(
      env,
      taskQueue,
      ids.map((id) => ({
        id,
        goal: goalFor({ run: id, iters: 1, calls, sleep: TOOL_MS }),
        maxIterations: 2,
        maxParallelTools: width,
      })),
    ),
  );
  const completed = ended.filter((run) => run.result?.status === 'completed').length;
  const toolCalls = ended.reduce((n, run) => n + (run.result?.waves.reduce((m, w) => m + w.calls.length, 0) ?? 0), 0);
  const inFlight = await Promise.all(
    ids.map(async (id) => mostInFlight(await env.client.workflow.getHandle(id).fetchHistory())),
  );
  const most = Math.max(...inFlight);
  return {
    id: 10,
    title: `Wave width: ${runs} runs at once, each one wave of ${calls} tool calls, maxParallelTools ${width}`,
    sizes: `${runs} runs × ${calls} calls of ${TOOL_MS} ms; one worker (100 activity slots)`,
    table: {
      head: ['runs completed', 'tool calls run', 'most in flight in one run', 'median of the runs’ most'],
      rows: [[`${completed} of ${runs}`, `${toolCalls} of ${runs * calls}`, most, median(inFlight)]],
    },
    targets: [
      { target: `most in flight in one run ≤ maxParallelTools (${width})`, value: String(most), met: most <= width },
    ],
    notes: [
      'In flight: `runTool` activities scheduled and not yet completed, failed, timed out or cancelled, counted event by event in each run’s history (an upper bound on the ones running). The width holds per run: the worker’s slots bound what runs at once across runs.',
    ],
    data: { runs, calls, width, completed, toolCalls, inFlight },
  };
}

/** The most `runTool` activities a history has scheduled and not yet closed at once. */
function mostInFlight(history: History): number {
  const open = new Set<string>();
  let most = 0;
  for (const event of history.events ?? []) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name === 'runTool') open.add(String(event.eventId));
    const closed =
      event.activityTaskCompletedEventAttributes ??
      event.activityTaskFailedEventAttributes ??
      event.activityTaskTimedOutEventAttributes ??
      event.activityTaskCanceledEventAttributes;
    if (closed) open.delete(String(closed.scheduledEventId));
    most = Math.max(most, open.size);
  }
  return most;
}
