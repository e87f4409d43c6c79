import type { temporal } from '@temporalio/proto';
import type { AgentLoopResult } from '../../src/contract/agent-loop';
import { goalFor } from '../../test/support/fake-model';
import type { BenchEnv } from '../support/env';
import { chainHistories, EventType, sizedEvents } from '../support/env';
import { ratio, type ScenarioResult } from '../support/report';
import { runId, runLoops } from '../support/waveloop';

const OUTPUT_BYTES = 2_048;
const MIB = 2 ** 20;

/**
 * History growth with 2 KB tool outputs: cumulative events and bytes (encoded HistoryEvents) at the
 * start of each iteration of one run without hand-overs, and the increment an iteration adds; then
 * one long run through its continue-as-new hand-overs (past `longRunMaxHistoryEvents`, the
 * default 2,000 unless given), the largest single run of its chain.
 */
export async function historyGrowth(
  env: BenchEnv,
  iterations: number,
  longRun: number,
  longRunMaxHistoryEvents?: number,
): Promise<ScenarioResult> {
  const { worker, taskQueue } = await env.worker();
  const { growth, byType, chain, longMs, longResult } = await worker.runUntil(async () => {
    const id = runId('history');
    const [one] = await runLoops(env, taskQueue, [
      {
        id,
        goal: goalFor({ run: id, iters: 0, calls: 1, out: OUTPUT_BYTES }),
        maxIterations: iterations + 1,
        maxHistoryEvents: 10_000,
      },
    ]);
    if (one.error) throw one.error;
    const [history] = await chainHistories(env.client, one.id, one.runId);
    const events = sizedEvents(history);
    // Iteration i starts where its model activity is scheduled.
    const starts: number[] = [];
    events.forEach((e, index) => {
      if (
        e.type === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED &&
        e.event.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel'
      )
        starts.push(index);
    });
    let bytes = 0;
    const cumulative = events.map((e) => (bytes += e.bytes));
    const at = (i: number) => ({ iteration: i, events: starts[i - 1], bytes: cumulative[starts[i - 1] - 1] });
    const growth = [...[10, 20, 50].filter((i) => i < iterations), iterations].map((i) => {
      const from = at(i);
      const to = at(i + 1);
      return { ...from, incEvents: to.events - from.events, incBytes: to.bytes - from.bytes };
    });
    // The last measured iteration's bytes by event type (the model call's scheduling, the tool's result, ...).
    const byType = new Map<string, number>();
    for (const e of events.slice(starts[iterations - 1], starts[iterations])) {
      const name = eventName(e.type, e.event);
      byType.set(name, (byType.get(name) ?? 0) + e.bytes);
    }

    const longId = runId('long');
    const t0 = performance.now();
    const [long] = await runLoops(env, taskQueue, [
      {
        id: longId,
        goal: goalFor({ run: longId, iters: 0, calls: 1, out: OUTPUT_BYTES }),
        maxIterations: longRun,
        maxHistoryEvents: longRunMaxHistoryEvents,
      },
    ]);
    const longMs = performance.now() - t0;
    const chain = (await chainHistories(env.client, long.id, long.runId)).map((h) => {
      const sized = sizedEvents(h);
      return { events: sized.length, bytes: sized.reduce((sum, e) => sum + e.bytes, 0) };
    });
    return {
      growth,
      byType: [...byType].sort((a, b) => b[1] - a[1]),
      chain,
      longMs,
      longResult: long.result ?? { error: String(long.error) },
    };
  });

  const inc = (i: number) => growth.find((g) => g.iteration === i)!.incBytes;
  // Iteration 20 is the reference, or the first one measured in a shorter run (the smoke run).
  const reference = iterations > 20 ? 20 : growth[0].iteration;
  const growthRatio = inc(iterations) / inc(reference);
  const maxBytes = Math.max(...chain.map((c) => c.bytes));
  const maxEvents = Math.max(...chain.map((c) => c.events));
  const result = longResult as AgentLoopResult;
  const longDone = result.iterations === longRun && result.status === 'max_iterations';
  const rows: Array<Array<string | number>> = growth.map((g) => [
    `iteration ${g.iteration}`,
    g.events,
    `${(g.bytes / 1024).toFixed(1)} KiB`,
    g.incEvents,
    `${g.incBytes} B`,
  ]);
  rows.push([
    `${longRun.toLocaleString('en-US')}-iteration run`,
    `${chain.length} runs (${chain.length - 1} hand-overs), largest ${maxEvents} events`,
    `largest ${(maxBytes / MIB).toFixed(2)} MiB`,
    `${result.iterations} iterations, ${result.status}`,
    `${(longMs / 1000).toFixed(0)} s`,
  ]);
  return {
    id: 5,
    title: `History growth with ${OUTPUT_BYTES / 1024} KB tool outputs`,
    sizes: `one run of ${iterations + 1} iterations (no hand-over), and one run of ${longRun.toLocaleString('en-US')} iterations with ${longRunMaxHistoryEvents ? `maxHistoryEvents ${longRunMaxHistoryEvents.toLocaleString('en-US')}` : 'the default maxHistoryEvents (2,000)'}${longRun < 10_000 ? ' (10,000 with BENCH_FULL=1)' : ''}`,
    table: { head: ['at', 'events so far', 'bytes so far', 'events this iteration', 'bytes this iteration'], rows },
    targets: [
      {
        target: `bytes added by iteration ${iterations} ≤ 1.5× those added by iteration ${reference}`,
        value: ratio(growthRatio),
        met: growthRatio <= 1.5,
      },
      {
        target: `a ${longRun.toLocaleString('en-US')}-iteration run completes, no single run past 4 MiB or 4,096 events`,
        value: `${result.iterations} iterations; largest run ${(maxBytes / MIB).toFixed(2)} MiB, ${maxEvents} events`,
        met: longDone && maxBytes <= 4 * MIB && maxEvents <= 4096,
      },
    ],
    notes: [
      'Bytes are the protobuf-encoded size of each HistoryEvent, as the server stores and sends them.',
      `Iteration ${iterations} by event: ${byType.map(([name, bytes]) => `${name} ${bytes} B`).join(', ')}. The ${OUTPUT_BYTES} B tool output is in the tool activity's result only: the next model call's input names it (call id, length, hash) and the worker that ran the tool fills it in (\`ModelCallInput.delta\`; before commit 8f9121d it was recorded there too, 6.7 KB per iteration).`,
    ],
    data: { growth, byType, chain, longMs, longResult: { status: result.status, iterations: result.iterations } },
  };
}

/** "ActivityTaskScheduled (callModel)": an event's type, with the activity's name for activity scheduling. */
function eventName(type: number, event: temporal.api.history.v1.IHistoryEvent): string {
  const name = (EventType[type] ?? String(type))
    .replace('EVENT_TYPE_', '')
    .toLowerCase()
    .replace(/(^|_)([a-z])/g, (_, __, c: string) => c.toUpperCase());
  const activity = event.activityTaskScheduledEventAttributes?.activityType?.name;
  return activity ? `${name} (${activity})` : name;
}
