import type { AnyTool } from '../../src/tools/define';
import type { WaveloopWorkerOptions } from '../../src/worker';
import { goalFor } from '../../test/support/fake-model';
import { benchLocalTool, benchTool } from '../support/bench-tool';
import type { BenchEnv } from '../support/env';
import { runAgents } from '../support/openai-agents';
import { ms, ratio, type ScenarioResult } from '../support/report';
import { gaps, median } from '../support/stats';
import { runId, runLoopsInTurn } from '../support/waveloop';

/** The wave widths N measured unless others are given. */
const WAVE_SIZES = [1, 4, 16, 64];
const TOOL_MS = 200;

/**
 * The configurations compared: waveloop's defaults (a read tool's calls as local activities), and
 * the calls as activities (`localActivity: false`) on waveloop's worker and with the SDK's defaults.
 */
export const WAVE_CONFIGS: Array<{ name: string; tuning: WaveloopWorkerOptions['tuning']; tools: AnyTool[] }> = [
  { name: 'waveloop defaults (the read tool as local activities)', tuning: {}, tools: [benchLocalTool] },
  {
    name: 'activities, waveloop worker defaults (64 eager reservations, 100 slots, 10 pollers)',
    tuning: {},
    tools: [benchTool],
  },
  {
    name: 'activities, SDK defaults (3 eager reservations, 100 slots, 10 pollers)',
    tuning: { maxEagerActivityReservationsPerWorkflowTask: 3 },
    tools: [benchTool],
  },
  {
    name: 'activities, SDK defaults with 20 activity pollers',
    tuning: { maxEagerActivityReservationsPerWorkflowTask: 3, maxConcurrentActivityTaskPolls: 20 },
    tools: [benchTool],
  },
];

/**
 * One wave of N tool calls that each take 200 ms: T(N) is the gap between the two model calls of a
 * run (the wave, plus one model call and the engine's own work).
 */
export async function waves(
  env: BenchEnv,
  repeats: number,
  agentsProblem: string | undefined,
  sizes: number[] = WAVE_SIZES,
): Promise<ScenarioResult> {
  const rows: Array<Array<string | number>> = [];
  const data: Record<string, Record<number, number>> = {};
  const goals = (engine: string, n: number) =>
    Array.from({ length: repeats }, () => {
      const id = runId(`${engine}-w${n}`);
      return { id, goal: goalFor({ run: id, iters: 1, calls: n, sleep: TOOL_MS }) };
    });
  const tOf = (ids: string[]) => median(ids.flatMap((id) => gaps(env.model.arrivals.get(id) ?? [])));

  for (const config of WAVE_CONFIGS) {
    const { worker, taskQueue } = await env.worker(config.tuning, { tools: config.tools });
    data[config.name] = await worker.runUntil(async () => {
      await runLoopsInTurn(
        env,
        taskQueue,
        goals('warm', 4).map((g) => ({ ...g, maxIterations: 2 })),
      );
      const t: Record<number, number> = {};
      for (const n of sizes) {
        const measured = goals('waveloop', n);
        // The wave's own width, so every call of it runs at once (the default `maxParallelTools`, 16, would hold T(64) to 16 at a time).
        await runLoopsInTurn(
          env,
          taskQueue,
          measured.map((g) => ({ ...g, maxIterations: 2, maxParallelTools: n })),
        );
        t[n] = tOf(measured.map((g) => g.id));
      }
      return t;
    });
  }
  if (!agentsProblem) {
    const measured = sizes.map((n) => ({ n, goals: goals('agents', n) }));
    try {
      await runAgents(
        env.address,
        env.model.baseURL,
        [...goals('warm-agents', 4), ...measured.flatMap((m) => m.goals)].map((g) => ({ ...g, maxTurns: 3 })),
      );
      data['@temporalio/openai-agents (SDK defaults)'] = Object.fromEntries(
        measured.map((m) => [m.n, tOf(m.goals.map((g) => g.id))]),
      );
    } catch (err) {
      rows.push(['@temporalio/openai-agents', String(err), '', '', '', '']);
    }
  }
  for (const [name, t] of Object.entries(data)) {
    rows.push([name, ...sizes.map((n) => `${ms(t[n], 0)} (${ratio(t[n] / t[1])})`)]);
  }
  const chosen = data[WAVE_CONFIGS[0].name];
  const widest = Math.max(...sizes);
  const rWidest = chosen[widest] / chosen[1];
  return {
    id: 3,
    title: `Wave parallelism: one wave of N tool calls of ${TOOL_MS} ms each`,
    sizes: `N = ${sizes.join(', ')}; median of ${repeats} runs each; T(N) includes the wave's model call`,
    table: { head: ['worker', ...sizes.map((n) => `T(${n}) (T(N)/T(1))`)], rows },
    targets: [
      {
        target: `T(${widest})/T(1) ≤ 1.3 (waveloop, its defaults)`,
        value: ratio(rWidest),
        met: rWidest <= 1.3,
      },
    ],
    notes: [
      "waveloop runs a `read` tool's calls as local activities by default: the workflow task that received the model's reply runs the whole wave in the worker (its `maxParallelTools` at a time) and completes once with every result, so a wider wave adds no trip through the server.",
      "Where the curve bends for calls as activities: (1) dispatch: the activities of a wave are scheduled in one workflow task; the SDK hands at most `maxEagerActivityReservationsPerWorkflowTask` (3 by default) of them to the worker in the reply to that task, every other one waits for an activity poller (10 by default, one task per poll), so with SDK defaults the calls start one poll round trip after another; waveloop's worker now reserves 64. (2) completion: every result wakes the workflow, and the wave ends with the workflow task that sees the last one; on a busy server results arrive spread out and take several workflow tasks. (3) slots: 100 activity slots per worker, so a wave wider than the free slots waits for slots (use `tuning.maxConcurrentActivityTaskExecutions`).",
    ],
    data,
  };
}
