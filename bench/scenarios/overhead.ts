import type { AnyTool } from '../../src/tools/define';
import { benchTool } from '../support/bench-tool';
import type { BenchEnv } from '../support/env';
import { goalFor } from '../support/fake-model';
import { runAgents } from '../support/openai-agents';
import { ms, ratio, type ScenarioResult } from '../support/report';
import { gaps, median, p95 } from '../support/stats';
import { runFloor, runId, runLoopsInTurn } from '../support/waveloop';

export interface OverheadSizes {
  runs: number;
  iterations: number;
}

interface EngineFigures {
  engine: string;
  iterations: number;
  median: number;
  p95: number;
  error?: string;
}

/** waveloop as it is, and with the proposed change to the loop (a prototype, see bench/support/variant.ts). */
export const WAVELOOP_CONFIGS: Array<{ name: string; variant?: string[]; tools?: AnyTool[] }> = [
  { name: 'waveloop agentLoop' },
  { name: 'waveloop, proposed loop change (prototype)', variant: ['since', 'statusOnly'] },
  { name: 'waveloop, proposed loop change + the tool as a local activity (prototype)', variant: ['since', 'statusOnly', 'local'], tools: [{ ...benchTool, localActivity: true }] },
];

/**
 * Per-iteration time of one model call plus a wave of one trivial tool, for waveloop, the floor
 * (the same loop in-process) and Temporal's integration; runs one at a time, after a warm-up run.
 * The time is taken by the fake model: the gap between two model calls of a run.
 */
async function measure(env: BenchEnv, sizes: OverheadSizes, delay: number, agentsProblem: string | undefined): Promise<EngineFigures[]> {
  const goals = (engine: string, n: number, iters: number) =>
    Array.from({ length: n }, () => {
      const id = runId(`${engine}-d${delay}`);
      return { id, goal: goalFor({ run: id, iters, calls: 1, delay }), iters };
    });
  const figures = (engine: string, ids: string[], error?: string): EngineFigures => {
    const all = ids.flatMap((id) => gaps(env.model.arrivals.get(id) ?? []));
    return { engine, iterations: all.length, median: median(all), p95: p95(all), error };
  };
  const warm = Math.min(5, sizes.iterations);

  const engines: EngineFigures[] = [];
  for (const config of WAVELOOP_CONFIGS) {
    let bundle;
    try {
      bundle = config.variant ? await env.variant(config.variant) : undefined;
    } catch (err) {
      engines.push({ engine: config.name, iterations: 0, median: NaN, p95: NaN, error: String(err) });
      continue;
    }
    const { worker, taskQueue } = await env.worker({}, { bundle, tools: config.tools });
    engines.push(
      await worker.runUntil(async () => {
        await runLoopsInTurn(env, taskQueue, goals('warm', 1, warm).map((g) => ({ id: g.id, goal: g.goal, maxIterations: warm + 1 })));
        const measured = goals('waveloop', sizes.runs, sizes.iterations);
        const done = await runLoopsInTurn(env, taskQueue, measured.map((g) => ({ id: g.id, goal: g.goal, maxIterations: g.iters + 1 })));
        const failed = done.find((d) => d.error || d.result?.status !== 'completed');
        return figures(config.name, measured.map((g) => g.id), failed ? String(failed.error ?? failed.result?.status) : undefined);
      }),
    );
  }

  await runFloor(env, goals('warm-floor', 1, warm)[0].goal, warm + 1);
  const floorGoals = goals('floor', sizes.runs, sizes.iterations);
  for (const g of floorGoals) await runFloor(env, g.goal, g.iters + 1);
  const floor = figures('in-process loop (floor)', floorGoals.map((g) => g.id));

  let agents: EngineFigures;
  if (agentsProblem) {
    agents = { engine: '@temporalio/openai-agents', iterations: 0, median: NaN, p95: NaN, error: agentsProblem };
  } else {
    const warmAgents = goals('warm-agents', 1, warm);
    const measured = goals('agents', sizes.runs, sizes.iterations);
    try {
      const outcome = await runAgents(env.address, env.model.baseURL, [...warmAgents, ...measured].map((g) => ({ id: g.id, goal: g.goal, maxTurns: g.iters + 2 })));
      const failed = outcome.results.find((r) => !r.ok);
      agents = figures('@temporalio/openai-agents', measured.map((g) => g.id), failed?.error);
    } catch (err) {
      agents = { engine: '@temporalio/openai-agents', iterations: 0, median: NaN, p95: NaN, error: String(err) };
    }
  }
  return [...engines, floor, agents];
}

export async function engineOverhead(env: BenchEnv, sizes: OverheadSizes, agentsProblem: string | undefined): Promise<ScenarioResult> {
  const all = await measure(env, sizes, 0, agentsProblem);
  const [waveloop, proposed, local, floor, agents] = all;
  const vsAgents = waveloop.median / agents.median;
  const rows = all.map((f) => [
    f.engine,
    f.iterations,
    ms(f.median, 2),
    ms(f.p95, 2),
    ratio(f.median / floor.median),
    ratio(f.median / agents.median),
    ms(f.median - floor.median, 2),
  ]);
  return {
    id: 1,
    title: 'Engine overhead per iteration (zero-latency model, one trivial tool)',
    sizes: `${sizes.runs} runs × ${sizes.iterations} iterations per engine, one run at a time, after a 5-iteration warm-up run`,
    table: { head: ['engine', 'iterations', 'median', 'p95', '× floor', '× openai-agents', 'overhead over floor'], rows },
    targets: [
      { target: 'waveloop ≤ 0.8× @temporalio/openai-agents (median per iteration)', value: ratio(vsAgents), met: vsAgents <= 0.8 },
      { target: 'the same, with the proposed loop change (prototype)', value: ratio(proposed.median / agents.median), met: proposed.median / agents.median <= 0.8 },
      { target: 'the same, with the tool as a local activity (prototype)', value: ratio(local.median / agents.median), met: local.median / agents.median <= 0.8 },
    ],
    notes: [
      'Both Temporal engines do the same server work per iteration: a model activity, a workflow task, a tool activity, a workflow task; on this machine each round trip through the dev server costs ~20–30 ms, which is nearly all of the iteration. The transcript query and the search-attribute upsert waveloop adds are off the critical path or cheap here (the first prototype removes them; it changes little for one run, and much for many runs, scenario 4). What does change it is one round trip less: the tool as a local activity runs inside the workflow task that received the model\'s reply.',
      ...all.filter((f) => f.error).map((f) => `${f.engine}: ${f.error}`),
    ],
    data: { engines: all, ratioToAgents: vsAgents, ratioToFloor: waveloop.median / floor.median, proposedRatioToAgents: proposed.median / agents.median },
  };
}

export async function realisticModel(env: BenchEnv, sizes: OverheadSizes, agentsProblem: string | undefined): Promise<ScenarioResult> {
  const delay = 500;
  const all = await measure(env, sizes, delay, agentsProblem);
  const [waveloop, , , floor, agents] = all;
  const share = (f: EngineFigures) => (f.median - floor.median) / f.median;
  const rows = all.map((f) => [f.engine, f.iterations, ms(f.median), ms(f.p95), ms(f.median - floor.median), `${(share(f) * 100).toFixed(2)} %`]);
  return {
    id: 2,
    title: 'Overhead as a share of a realistic model (the model answers after 500 ms)',
    sizes: `${sizes.runs} run(s) × ${sizes.iterations} iterations per engine`,
    table: { head: ['engine', 'iterations', 'median', 'p95', 'overhead over floor', 'share of the iteration'], rows },
    targets: [
      { target: 'waveloop overhead < 3 % of the iteration', value: `${(share(waveloop) * 100).toFixed(2)} %`, met: share(waveloop) < 0.03 },
      { target: 'the same, with the tool as a local activity (prototype)', value: `${(share(all[2]) * 100).toFixed(2)} %`, met: share(all[2]) < 0.03 },
    ],
    notes: [
      'Share = (engine median − floor median) / engine median; the floor already holds the 500 ms model and the HTTP round trip.',
      ...all.filter((f) => f.error).map((f) => `${f.engine}: ${f.error}`),
    ],
    data: { engines: all, shareWaveloop: share(waveloop), shareAgents: share(agents) },
  };
}

