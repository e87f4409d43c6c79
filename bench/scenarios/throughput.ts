import type { AnyTool } from '../../src/tools/define';
import { benchTool } from '../support/bench-tool';
import type { BenchEnv } from '../support/env';
import { scheduleToStart } from '../support/env';
import { goalFor } from '../support/fake-model';
import { ms, type ScenarioResult } from '../support/report';
import { p95, rssSampler } from '../support/stats';
import { runId, runLoops } from '../support/waveloop';
import { throughputTuning } from '../../src/worker/tuning';

const ITERATIONS = 5;
const MODEL_MS = 1_000;

/**
 * Many concurrent runs of 5 iterations (4 waves of one trivial tool, then the answer) on one worker
 * and the embedded server, with a model that answers after 1 s. The ideal rate is `runs / 1 s`
 * iterations per second (the tool takes ~0 ms).
 */
export async function throughput(env: BenchEnv, counts: number[]): Promise<ScenarioResult> {
  const rows: Array<Array<string | number>> = [];
  const data: unknown[] = [];
  const targets: ScenarioResult['targets'] = [];
  const configs = counts.flatMap((count) => [
    ...(count <= 100 ? [{ count, name: 'SDK defaults', tuning: {}, variant: undefined }] : []),
    { count, name: 'throughputTuning(runs)', tuning: throughputTuning(count), variant: undefined },
    { count, name: 'throughputTuning(runs) + proposed loop change (prototype)', tuning: throughputTuning(count), variant: ['since', 'statusOnly'] },
    {
      count,
      name: 'the same + the tool as a local activity (prototype)',
      tuning: throughputTuning(count),
      variant: ['since', 'statusOnly', 'local'],
      tools: [{ ...benchTool, localActivity: true }],
    },
  ]);
  for (const { count, name, tuning, variant, tools } of configs as Array<(typeof configs)[number] & { tools?: AnyTool[] }>) {
    const { worker, taskQueue } = await env.worker(tuning, { bundle: variant ? await env.variant(variant) : undefined, tools });
    const rss = rssSampler();
    const started = performance.now();
    const outcome = await worker.runUntil(async () => {
      const runs = Array.from({ length: count }, () => {
        const id = runId(`tp${count}`);
        return { id, goal: goalFor({ run: id, iters: ITERATIONS - 1, calls: 1, delay: MODEL_MS }), maxIterations: ITERATIONS };
      });
      const done = await runLoops(env, taskQueue, runs);
      const wallMs = performance.now() - started;
      const completed = done.filter((d) => d.result?.status === 'completed').length;
      const latencies: number[] = [];
      for (let i = 0; i < done.length; i += 50) {
        const histories = await Promise.all(done.slice(i, i + 50).map((d) => env.client.workflow.getHandle(d.id, d.runId).fetchHistory()));
        for (const history of histories) latencies.push(...scheduleToStart(history));
      }
      return { completed, wallMs, latencies, firstError: done.find((d) => d.error)?.error };
    });
    const peakRss = rss.stop();
    const rate = (outcome.completed * ITERATIONS) / (outcome.wallMs / 1000);
    const ideal = count / (MODEL_MS / 1000);
    rows.push([
      count,
      name,
      `${outcome.completed} / ${count}`,
      `${(outcome.wallMs / 1000).toFixed(1)} s`,
      rate.toFixed(1),
      `${((rate / ideal) * 100).toFixed(0)} %`,
      ms(p95(outcome.latencies), 0),
      `${Math.round(peakRss / 2 ** 20)} MiB`,
    ]);
    data.push({ count, name, tuning, ...outcome, latencies: undefined, p95ScheduleToStartMs: p95(outcome.latencies), rate, ideal, peakRss, firstError: outcome.firstError ? String(outcome.firstError) : undefined });
    if (!variant && name !== 'SDK defaults') {
      targets.push({
        target: `${count} concurrent runs: all complete, at ≥ 60 % of the ideal rate (${ideal} iterations/s)`,
        value: `${outcome.completed}/${count}, ${((rate / ideal) * 100).toFixed(0)} %`,
        met: outcome.completed === count && rate / ideal >= 0.6,
      });
    }
  }
  return {
    id: 4,
    title: `Throughput: concurrent runs of ${ITERATIONS} iterations, the model answering after ${MODEL_MS / 1000} s`,
    sizes: `${counts.join(' and ')} concurrent runs${counts.includes(1000) ? '' : ' (1,000 with BENCH_FULL=1)'}`,
    table: { head: ['runs', 'worker', 'completed', 'wall time', 'iterations/s', 'of ideal', 'p95 activity schedule-to-start', 'peak RSS (runner)'], rows },
    targets,
    notes: [
      'One worker in the runner process, which also holds the fake model and the client: the RSS is an upper bound for the worker.',
      'Each iteration costs the server two workflow tasks and two activities (the model call, the tool), plus, today, a `transcript` query and a search-attribute upsert: on this 2-core machine the dev server (Go, SQLite), not the worker, is the bottleneck; the worker process is mostly idle (CPU profile). The prototypes show what removing server work per iteration buys.',
      'Schedule-to-start is read from the histories (ActivityTaskStarted − ActivityTaskScheduled), over every activity of every run.',
    ],
    data,
  };
}
