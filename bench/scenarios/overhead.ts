import type { AnyTool } from '../../src/tools/define';
import { goalFor } from '../../test/support/fake-model';
import { benchLocalTool, benchTool } from '../support/bench-tool';
import type { BenchEnv } from '../support/env';
import { runAgents } from '../support/openai-agents';
import { ms, ratio, type ScenarioResult } from '../support/report';
import { cpuSampler, gaps, median, p95 } from '../support/stats';
import { describeTimeline, iterationTimeline, type IterationTimeline } from '../support/timeline';
import { runFloor, runId, runLoopsInTurn } from '../support/waveloop';

export interface OverheadSizes {
  runs: number;
  iterations: number;
  /** How long the model takes to answer in scenario 2 (500 ms unless given; the smoke run shortens it). */
  modelDelayMs?: number;
}

interface EngineFigures {
  engine: string;
  iterations: number;
  median: number;
  p95: number;
  /** Where an iteration's time went, from the measured runs' histories (Temporal engines only). */
  timeline?: IterationTimeline;
  /** CPU milliseconds per iteration: the engine's processes (worker, client, the fake model) and the Temporal server. */
  cpu?: { engine: number; server: number | undefined };
  error?: string;
}

const AGENTS = '@temporalio/openai-agents';
const FLOOR = 'in-process loop (floor)';

/** waveloop as it runs by default (a read tool as a local activity), with the tool as an activity, and with local model calls. */
export const WAVELOOP_CONFIGS: Array<{ name: string; tools: AnyTool[]; localModelCalls?: boolean }> = [
  { name: 'waveloop defaults (the read tool as a local activity)', tools: [benchLocalTool] },
  { name: 'waveloop, the tool as an activity (`localActivity: false`)', tools: [benchTool] },
  {
    name: 'waveloop, model calls and the tool as local activities (`localModelCalls`)',
    tools: [benchLocalTool],
    localModelCalls: true,
  },
];

/** `n` runs of `iters` iterations of one trivial tool call, with a model that answers after `delay` ms. */
function goalsFor(engine: string, n: number, iters: number, delay: number) {
  return Array.from({ length: n }, () => {
    const id = runId(`${engine}-d${delay}`);
    return { id, goal: goalFor({ run: id, iters, calls: 1, delay }), iters };
  });
}

/** The iterations of the given runs, as the fake model saw them. */
function figuresOf(env: BenchEnv, engine: string, ids: string[], error?: string): EngineFigures {
  const all = ids.flatMap((id) => gaps(env.model.arrivals.get(id) ?? []));
  return { engine, iterations: all.length, median: median(all), p95: p95(all), error };
}

/** The floor alone: the same loop in-process (runFloor), after a warm-up run. */
async function measureFloor(env: BenchEnv, sizes: OverheadSizes, delay: number): Promise<EngineFigures> {
  const warm = Math.min(5, sizes.iterations);
  await runFloor(env, goalsFor('warm-floor', 1, warm, delay)[0].goal, warm + 1);
  const measured = goalsFor('floor', sizes.runs, sizes.iterations, delay);
  for (const g of measured) await runFloor(env, g.goal, g.iters + 1);
  return figuresOf(
    env,
    FLOOR,
    measured.map((g) => g.id),
  );
}

/** What one engine measured over the rounds: its runs, CPU seconds and iterations, the first error. */
interface Tally {
  engine: string;
  ids: string[];
  temporal: boolean;
  cpu?: { engine: number; server: number | undefined; iterations: number };
  error?: string;
}

/**
 * Per-iteration time of one model call plus a wave of one trivial tool, for waveloop, the floor
 * (the same loop in-process) and Temporal's integration; runs one at a time, each after a warm-up
 * run. The engines take turns, one run each per round, in the opposite order every other round, so
 * that a machine whose speed drifts (a VM with busy neighbours) slows them alike. The time is taken
 * by the fake model: the gap between two model calls of a run.
 */
async function measure(
  env: BenchEnv,
  sizes: OverheadSizes,
  delay: number,
  agentsProblem: string | undefined,
): Promise<EngineFigures[]> {
  const goals = (engine: string, n: number, iters: number) => goalsFor(engine, n, iters, delay);
  const warm = Math.min(5, sizes.iterations);
  const tallies = new Map<string, Tally>();
  const tally = (engine: string, temporal: boolean) => {
    if (!tallies.has(engine)) tallies.set(engine, { engine, ids: [], temporal });
    return tallies.get(engine)!;
  };
  const addCpu = (t: Tally, engine: number, server: number | undefined, iterations: number) => {
    const before = t.cpu ?? { engine: 0, server: 0, iterations: 0 };
    t.cpu = {
      engine: before.engine + engine,
      server: server === undefined || before.server === undefined ? undefined : before.server + server,
      iterations: before.iterations + iterations,
    };
  };

  const waveloopRun = (config: (typeof WAVELOOP_CONFIGS)[number]) => async () => {
    const t = tally(config.name, true);
    const { worker, taskQueue } = await env.worker({}, { tools: config.tools });
    const [measured] = goals('waveloop', 1, sizes.iterations);
    const { failed, cpu } = await worker.runUntil(async () => {
      const { localModelCalls } = config;
      await runLoopsInTurn(
        env,
        taskQueue,
        goals('warm', 1, warm).map((g) => ({ id: g.id, goal: g.goal, maxIterations: warm + 1, localModelCalls })),
      );
      const sampler = cpuSampler(env.serverPid());
      const done = await runLoopsInTurn(env, taskQueue, [
        { id: measured.id, goal: measured.goal, maxIterations: measured.iters + 1, localModelCalls },
      ]);
      return { failed: done.find((d) => d.error || d.result?.status !== 'completed'), cpu: sampler.stop() };
    });
    t.ids.push(measured.id);
    t.error ??= failed ? String(failed.error ?? failed.result?.status) : undefined;
    addCpu(t, cpu.runner, cpu.server, gaps(env.model.arrivals.get(measured.id) ?? []).length);
  };
  const floorRun = async () => {
    const t = tally(FLOOR, false);
    await runFloor(env, goals('warm-floor', 1, warm)[0].goal, warm + 1);
    const [measured] = goals('floor', 1, sizes.iterations);
    await runFloor(env, measured.goal, measured.iters + 1);
    t.ids.push(measured.id);
  };
  const agentsRun = async () => {
    const t = tally(AGENTS, true);
    if (agentsProblem) {
      t.error ??= agentsProblem;
      return;
    }
    const warmAgents = goals('warm-agents', 1, warm);
    const measured = goals('agents', 1, sizes.iterations);
    try {
      // The server's CPU is taken over the whole child process (its start and the warm-up run included).
      const sampler = cpuSampler(env.serverPid());
      const outcome = await runAgents(
        env.address,
        env.model.baseURL,
        [...warmAgents, ...measured].map((g) => ({ id: g.id, goal: g.goal, maxTurns: g.iters + 2 })),
      );
      const cpu = sampler.stop();
      const ids = measured.map((g) => g.id);
      t.ids.push(...ids);
      t.error ??= outcome.results.find((r) => !r.ok)?.error;
      const measuredIterations = ids.reduce((sum, id) => sum + gaps(env.model.arrivals.get(id) ?? []).length, 0);
      const total = [...warmAgents, ...measured].reduce(
        (sum, g) => sum + gaps(env.model.arrivals.get(g.id) ?? []).length,
        0,
      );
      const workerSeconds =
        outcome.results.filter((r) => ids.includes(r.id)).reduce((sum, r) => sum + r.cpuMs, 0) / 1000;
      // The runner holds only the fake model here; its CPU is counted with the worker's, as for waveloop.
      addCpu(
        t,
        workerSeconds + (cpu.runner * measuredIterations) / total,
        cpu.server === undefined ? undefined : (cpu.server * measuredIterations) / total,
        measuredIterations,
      );
    } catch (err) {
      t.error ??= String(err);
    }
  };

  const turns = [...WAVELOOP_CONFIGS.map(waveloopRun), floorRun, agentsRun];
  for (let round = 0; round < sizes.runs; round++) {
    for (const turn of round % 2 === 0 ? turns : [...turns].reverse()) await turn();
  }
  const timeline = async (ids: string[]) =>
    iterationTimeline(await Promise.all(ids.map((id) => env.client.workflow.getHandle(id).fetchHistory())));
  const engines: EngineFigures[] = [];
  for (const t of tallies.values()) {
    const f = figuresOf(env, t.engine, t.ids, t.error);
    engines.push({
      ...f,
      ...(t.temporal && t.ids.length ? { timeline: await timeline(t.ids) } : {}),
      ...(t.cpu?.iterations ? { cpu: perIteration(t.cpu.engine, t.cpu.server, t.cpu.iterations) } : {}),
    });
  }
  return engines;
}

/** CPU seconds spent over `iterations` as milliseconds per iteration. */
function perIteration(
  engine: number,
  server: number | undefined,
  iterations: number,
): NonNullable<EngineFigures['cpu']> {
  return {
    engine: (engine * 1000) / iterations,
    server: server === undefined ? undefined : (server * 1000) / iterations,
  };
}

/** Notes shared by scenarios 1 and 2: where each Temporal engine's iteration went, and errors. */
function timelineNotes(all: EngineFigures[], withCpu: boolean): string[] {
  return [
    ...all
      .filter((f) => f.timeline?.iterations)
      .map(
        (f) =>
          `${f.engine}, per iteration from its histories' event times: ${describeTimeline(f.timeline!)}${withCpu && f.cpu ? `; CPU per iteration: ${ms(f.cpu.engine)} in the engine's processes (worker, client, fake model), ${ms(f.cpu.server ?? NaN)} in the server` : ''}.`,
      ),
    ...all.filter((f) => f.error).map((f) => `${f.engine}: ${f.error}`),
  ];
}

/** The server's default transfer-queue read limit, for the note that says how to measure without waveloop's setting. */
const DEFAULT_READS =
  "BENCH_SERVER_ARGS='--dynamic-config-value history.transferProcessorMaxPollRPS=20 --dynamic-config-value history.visibilityProcessorMaxPollRPS=20'";

export async function engineOverhead(
  env: BenchEnv,
  sizes: OverheadSizes,
  agentsProblem: string | undefined,
): Promise<ScenarioResult> {
  const all = await measure(env, sizes, 0, agentsProblem);
  const [waveloop, activity, allLocal, floor, agents] = all;
  const vs = (f: EngineFigures) => f.median / agents.median;
  const rows = all.map((f) => [
    f.engine,
    f.iterations,
    ms(f.median, 2),
    ms(f.p95, 2),
    ratio(f.median / floor.median),
    ratio(vs(f)),
    ms(f.median - floor.median, 2),
  ]);
  return {
    id: 1,
    title: 'Engine overhead per iteration (zero-latency model, one trivial tool)',
    sizes: `${sizes.runs} runs × ${sizes.iterations} iterations per engine, one run at a time, each after a 5-iteration warm-up run; the engines take turns (one run each per round, the order reversed every other round)`,
    table: {
      head: ['engine', 'iterations', 'median', 'p95', '× floor', '× openai-agents', 'overhead over floor'],
      rows,
    },
    targets: [
      {
        target: 'waveloop ≤ 0.55× @temporalio/openai-agents (median per iteration, its defaults)',
        value: ratio(vs(waveloop)),
        met: vs(waveloop) <= 0.55,
      },
      {
        target: 'waveloop with the tool as a local activity (its default for a `read` tool) ≤ 0.4×',
        value: ratio(vs(waveloop)),
        met: vs(waveloop) <= 0.4,
      },
      {
        target: 'model calls and the tool as local activities (`localModelCalls: true`) ≤ 0.4×',
        value: ratio(vs(allLocal)),
        met: vs(allLocal) <= 0.4,
      },
    ],
    notes: [
      "Both Temporal engines make the same trips through the server per iteration (the timelines below): the model activity completes, a workflow task schedules the tool activity, the tool activity completes, a workflow task schedules the next model activity. Activities start at once (the worker receives them in the reply to the workflow task that scheduled them: eager dispatch); workflow tasks wait in the server's queue; the rest is the time each task takes once picked up: the worker's work, the server's writes and the calls between them.",
      compareEngines(activity, agents),
      `A workflow task is dispatched through the history service's transfer queue, which the server reads at most 20 times a second per shard by default (the dev server has one shard): a run going faster waits for the next read. waveloop starts every server it runs, this one included, with \`history.transferProcessorMaxPollRPS\` and \`history.visibilityProcessorMaxPollRPS\` at 1,000 (src/server/tuning.ts), and a workflow task waited ${ms(queuePerTask(activity))} in the queue here. Both engines share this server and gain alike; with the server's defaults (${DEFAULT_READS} npm run bench) the reads are 50 ms apart and each workflow task waits ~25–30 ms for one, an iteration ~100 ms for both engines.`,
      `A \`read\` tool runs by default inside the workflow task that received the model's reply (a local activity): one activity and one workflow task less per iteration than the tool as an activity (${waveloop.timeline ? `${waveloop.timeline.workflowTasks.toFixed(1)} workflow task and ${waveloop.timeline.modelActivities.toFixed(1)} activity are left` : 'see its timeline'}), ${ms(activity.median - waveloop.median)} less per iteration here. With \`localModelCalls: true\` the model call runs inside the workflow task too: ${allLocal.timeline ? `${allLocal.timeline.workflowTasks.toFixed(2)} workflow tasks per iteration (one workflow task holds several iterations while its local activities run) and no activity` : 'see its timeline'}, ${ms(waveloop.median - allLocal.median)} less per iteration than the default; the reply then arrives whole (no streaming) and the workflow task stays open while the model answers.`,
      ...timelineNotes(all, true),
    ],
    data: {
      engines: all,
      ratioToAgents: vs(waveloop),
      ratioToFloor: waveloop.median / floor.median,
      activityRatioToAgents: vs(activity),
      allLocalRatioToAgents: vs(allLocal),
    },
  };
}

const queuePerTask = (f: EngineFigures) =>
  f.timeline?.workflowTasks ? f.timeline.workflowTaskQueue / f.timeline.workflowTasks : NaN;
const pickedUpPerTask = (f: EngineFigures) =>
  f.timeline?.workflowTasks ? f.timeline.workflowTaskWorker / f.timeline.workflowTasks : NaN;

/** What makes waveloop's iteration shorter or longer than the integration's, from both timelines and CPU figures. */
function compareEngines(waveloop: EngineFigures, agents: EngineFigures): string {
  if (!waveloop.timeline || !agents.timeline) return 'The integration did not run, so the engines are not compared.';
  const w = waveloop.timeline;
  const a = agents.timeline;
  const cpu = (f: EngineFigures) => ms(f.cpu?.engine ?? NaN);
  return (
    `With the tool as an activity the difference between the engines is the time their tasks take once picked up: a workflow task ${ms(pickedUpPerTask(waveloop))} for waveloop and ${ms(pickedUpPerTask(agents))} for the integration (which runs @openai/agents-core's runner inside the workflow), the model activity ${ms(w.modelRun / w.modelActivities)} and ${ms(a.modelRun / a.modelActivities)}, the tool activity ${ms(w.toolRun / w.toolActivities)} and ${ms(a.toolRun / a.toolActivities)}; ` +
    `the engines' processes used ${cpu(waveloop)} and ${cpu(agents)} of CPU per iteration. With the same trips and the same queue times, the ratio (${ratio(waveloop.median / agents.median)}) comes from that work alone, and it moves with the machine's load: a busy CPU lengthens every task of both engines.`
  );
}

export async function realisticModel(
  env: BenchEnv,
  sizes: OverheadSizes,
  agentsProblem: string | undefined,
): Promise<ScenarioResult> {
  const delay = sizes.modelDelayMs ?? 500;
  const all = await measure(env, sizes, delay, agentsProblem);
  const [waveloop, activity, allLocal, floor, agents] = all;
  const share = (f: EngineFigures) => (f.median - floor.median) / f.median;
  const percent = (f: EngineFigures) => `${(share(f) * 100).toFixed(2)} %`;
  const rows = all.map((f) => [
    f.engine,
    f.iterations,
    ms(f.median),
    ms(f.p95),
    ms(f.median - floor.median),
    percent(f),
  ]);
  // The largest overhead within 3.5 % of an iteration whose other part is the floor: o / (floor + o) ≤ 0.035.
  const allowed = (floor.median * 0.035) / 0.965;
  const overhead = (f: EngineFigures) => f.median - floor.median;
  // The same overhead next to a model that takes 2 s instead.
  const slower = (f: EngineFigures) =>
    `${((overhead(f) / (floor.median + 2_000 - delay + overhead(f))) * 100).toFixed(1)} %`;
  const idleFloor = await measureFloor(env, sizes, 0);
  const w = waveloop.timeline;
  return {
    id: 2,
    title: `Overhead as a share of a realistic model (the model answers after ${delay} ms)`,
    sizes: `${sizes.runs} run(s) × ${sizes.iterations} iterations per engine`,
    table: { head: ['engine', 'iterations', 'median', 'p95', 'overhead over floor', 'share of the iteration'], rows },
    targets: [
      {
        target: 'waveloop overhead ≤ 3.5 % of the iteration (its defaults: the read tool as a local activity)',
        value: percent(waveloop),
        met: share(waveloop) <= 0.035,
      },
      {
        target: 'the same, model calls and the tool as local activities (`localModelCalls: true`)',
        value: percent(allLocal),
        met: share(allLocal) <= 0.035,
      },
    ],
    notes: [
      `Share = (engine median − floor median) / engine median; the floor already holds the ${delay} ms model and the HTTP round trip.`,
      `At most 3.5 % means at most ${ms(allowed)} of engine time per iteration. The fewest trips an iteration of waveloop can make with streamed model calls are a model activity and one workflow task (its default with a read tool); the first row of scenario 1 shows what those cost on this machine when nothing waits. The overhead here is ${ms(overhead(waveloop))} for waveloop, ${ms(overhead(activity))} with the tool as an activity and ${ms(overhead(agents))} for the integration; next to a model that takes 2 s the same overheads would be ${slower(waveloop)}, ${slower(activity)} and ${slower(agents)}.`,
      `While the model waits ${delay} ms the worker and the server sit idle, and each task takes longer once picked up than in scenario 1, where one trip follows another${w?.workflowTasks ? ` (waveloop's workflow tasks ${ms(w.workflowTaskWorker / w.workflowTasks)} each here)` : ''}; the in-process floor, too, took ${ms(floor.median - delay)} beyond the model's delay, against ${ms(idleFloor.median)} per iteration with no delay. Likely causes are cold caches and, on a virtual machine, idle virtual CPUs to wake up.`,
      ...timelineNotes(all, false),
    ],
    data: {
      engines: all,
      shareWaveloop: share(waveloop),
      shareActivity: share(activity),
      shareAllLocal: share(allLocal),
      shareAgents: share(agents),
    },
  };
}
