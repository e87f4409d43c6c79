import type { BenchEnv } from '../support/env';
import { benchTool } from '../support/bench-tool';
import { goalFor } from '../support/fake-model';
import { ms, ratio, type ScenarioResult } from '../support/report';
import { gaps, median, p95 } from '../support/stats';
import { runId, runLoopsInTurn } from '../support/waveloop';

/**
 * A one-trivial-tool iteration with the tool as a regular activity and as a local activity
 * (`defineTool({ localActivity: true })`). The loop does not honour the option yet (the change to
 * src/workflows/wave.ts is pending), so both rows run the prototype of that change
 * (bench/support/variant.ts, `local`); the first with the tool unmarked.
 */
export async function localActivities(env: BenchEnv, iterations: number): Promise<ScenarioResult> {
  const rows: Array<Array<string | number>> = [];
  const figures: Record<string, { median: number; p95: number }> = {};
  let problem: string | undefined;
  try {
    const bundle = await env.variant(['local']);
    for (const [name, tool] of [
      ['regular activity', benchTool],
      ['local activity', { ...benchTool, localActivity: true }],
    ] as const) {
      const { worker, taskQueue } = await env.worker({}, { bundle, tools: [tool] });
      const times = await worker.runUntil(async () => {
        const warm = runId('local-warm');
        await runLoopsInTurn(env, taskQueue, [{ id: warm, goal: goalFor({ run: warm, iters: 5 }), maxIterations: 6 }]);
        const id = runId('local');
        const [done] = await runLoopsInTurn(env, taskQueue, [{ id, goal: goalFor({ run: id, iters: iterations }), maxIterations: iterations + 1 }]);
        if (done.error) throw done.error;
        return gaps(env.model.arrivals.get(id) ?? []);
      });
      figures[name] = { median: median(times), p95: p95(times) };
      rows.push([name, times.length, ms(median(times), 2), ms(p95(times), 2)]);
    }
  } catch (err) {
    problem = String(err);
  }
  const gain = figures['local activity'] && figures['regular activity'] ? figures['local activity'].median / figures['regular activity'].median : NaN;
  return {
    id: 8,
    title: 'Cheap read-only tools as local activities',
    sizes: problem ? 'not run' : `one run of ${iterations} iterations each, after a warm-up run`,
    table: { head: ['tool runs as', 'iterations', 'median per iteration', 'p95'], rows: problem ? [['not run', problem, '', '']] : rows },
    targets: [{ target: 'overhead per iteration, local vs regular activity (pending the loop change)', value: problem ? 'not run' : `${ratio(gain)} of regular`, met: 'pending' }],
    notes: [
      'The option exists (`defineTool({ localActivity: true })`, carried to the workflow in `ToolInfo.localActivity` by `resolveRun`); the loop itself still runs every tool as a regular `runTool` activity, so these figures come from the prototype of the pending change to `src/workflows/wave.ts`.',
      ...(problem ? [problem] : []),
    ],
    data: { figures, ratio: gain, problem },
  };
}
