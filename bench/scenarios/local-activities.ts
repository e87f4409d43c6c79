import { goalFor } from '../../test/support/fake-model';
import { benchLocalTool, benchTool } from '../support/bench-tool';
import type { BenchEnv } from '../support/env';
import { ms, ratio, type ScenarioResult } from '../support/report';
import { gaps, median, p95 } from '../support/stats';
import { describeTimeline, iterationTimeline, type IterationTimeline } from '../support/timeline';
import { runId, runLoopsInTurn } from '../support/waveloop';

/**
 * A one-trivial-tool iteration with the tool as a regular activity (`benchTool`) and as a local
 * activity (`benchLocalTool`, `defineTool({ localActivity: true })`), each on a worker of its own.
 */
export async function localActivities(env: BenchEnv, iterations: number): Promise<ScenarioResult> {
  const figures: Record<string, { iterations: number; median: number; p95: number; timeline: IterationTimeline }> = {};
  for (const [name, tool] of [
    ['regular activity', benchTool],
    ['local activity', benchLocalTool],
  ] as const) {
    const { worker, taskQueue } = await env.worker({}, { tools: [tool] });
    const id = runId('local');
    await worker.runUntil(async () => {
      const warm = runId('local-warm');
      await runLoopsInTurn(env, taskQueue, [{ id: warm, goal: goalFor({ run: warm, iters: 5 }), maxIterations: 6 }]);
      const [done] = await runLoopsInTurn(env, taskQueue, [
        { id, goal: goalFor({ run: id, iters: iterations }), maxIterations: iterations + 1 },
      ]);
      if (done.error) throw done.error;
    });
    const times = gaps(env.model.arrivals.get(id) ?? []);
    const timeline = iterationTimeline([await env.client.workflow.getHandle(id).fetchHistory()]);
    figures[name] = { iterations: times.length, median: median(times), p95: p95(times), timeline };
  }
  const regular = figures['regular activity'];
  const local = figures['local activity'];
  const gain = local.median / regular.median;
  const t = (f: typeof regular) => f.timeline;
  return {
    id: 8,
    title: 'Cheap read-only tools as local activities',
    sizes: `one run of ${iterations} iterations each, after a warm-up run`,
    table: {
      head: [
        'tool runs as',
        'iterations',
        'median per iteration',
        'p95',
        'workflow tasks per iteration',
        'activities per iteration',
      ],
      rows: Object.entries(figures).map(([name, f]) => [
        name,
        f.iterations,
        ms(f.median, 2),
        ms(f.p95, 2),
        t(f).workflowTasks.toFixed(1),
        (t(f).modelActivities + t(f).toolActivities).toFixed(1),
      ]),
    },
    targets: [
      {
        target: 'time per iteration, the tool as a local vs a regular activity',
        value: `${ratio(gain)} of regular`,
        met: 'no threshold',
      },
    ],
    notes: [
      "The loop runs a tool declared `defineTool({ localActivity: true })` as a local activity (src/workflows/wave.ts): in the worker that runs the workflow, within the workflow task that received the model's reply, recorded as a marker. The tool activity and the workflow task that its completion would have caused are gone; what is left per iteration is the model activity and one workflow task.",
      ...Object.entries(figures).map(
        ([name, f]) => `${name}, per iteration from the run's history: ${describeTimeline(f.timeline)}.`,
      ),
      'Local activities suit cheap, read-only tools that finish well within a workflow task: they do not heartbeat, they are retried by the workflow, and a worker that dies before the workflow task completes leaves them to run again on another worker.',
    ],
    data: { figures, ratio: gain },
  };
}
