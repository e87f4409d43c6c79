import * as os from 'node:os';
import type { AnyTool } from '../../src/tools/define';
import type { WaveloopWorkerOptions } from '../../src/worker';
import { throughputTuning } from '../../src/worker/tuning';
import { goalFor } from '../../test/support/fake-model';
import { benchLocalTool, benchTool } from '../support/bench-tool';
import type { BenchEnv } from '../support/env';
import { scheduleToStart } from '../support/env';
import { ms, type ScenarioResult } from '../support/report';
import { cpuSampler, gaps, median, p95, rssSampler } from '../support/stats';
import { describeTimeline, iterationTimeline, startTimeline, type IterationTimeline } from '../support/timeline';
import { runId, runLoops } from '../support/waveloop';

const ITERATIONS = 5;
const MODEL_MS = 1_000;

interface Config {
  count: number;
  name: string;
  tuning: WaveloopWorkerOptions['tuning'];
  tools: AnyTool[];
  /**
   * The SDK's defaults; waveloop's throughput tuning with its defaults, the read tool as a local
   * activity (a target); the same with the tool as an activity; with local model calls (a target).
   */
  role: 'sdk' | 'tuned' | 'activity' | 'allLocal';
  localModelCalls?: boolean;
  /** How long the fake model takes to answer (1 s; less in a smoke run). */
  modelMs: number;
}

/** What one configuration measured. */
interface Figures {
  config: Config;
  completed: number;
  wallMs: number;
  rate: number;
  ideal: number;
  p95ScheduleToStartMs: number;
  peakRss: number;
  /** CPU seconds of the runner and the server over the wall time, and milliseconds of both per completed iteration. */
  cpu: { wall: number; runner: number; server: number | undefined; perIteration: number | undefined };
  /** Median milliseconds from the start to each run's first model call, the latest such, and the median iteration. */
  firstCall: number;
  lastFirstCall: number;
  iteration: number;
  afterLastMs: number;
  /** Per run, before its first model call; per iteration. */
  start: IterationTimeline;
  iterationTimeline: IterationTimeline;
  firstError?: string;
}

/**
 * Many concurrent runs of 5 iterations (4 waves of one trivial tool, then the answer) on one worker
 * and the embedded server, with a model that answers after 1 s. The ideal rate is `runs / 1 s`
 * iterations per second (the tool takes ~0 ms). Sizes up to 100 runs are measured `roundsPerSize`
 * times (BENCH_THROUGHPUT_ROUNDS, 3 by default), larger ones once.
 */
export async function throughput(
  env: BenchEnv,
  counts: number[],
  roundsPerSize = Number(process.env.BENCH_THROUGHPUT_ROUNDS ?? 3),
  modelMs = MODEL_MS,
): Promise<ScenarioResult> {
  const configs: Config[] = counts.flatMap((count): Config[] => [
    ...(count <= 100
      ? [
          {
            count,
            modelMs,
            name: 'SDK defaults, the tool as an activity',
            tuning: {},
            tools: [benchTool],
            role: 'sdk' as const,
          },
        ]
      : []),
    {
      count,
      modelMs,
      name: 'throughputTuning(runs), the read tool as a local activity (its default)',
      tuning: throughputTuning(count),
      tools: [benchLocalTool],
      role: 'tuned' as const,
    },
    {
      count,
      modelMs,
      name: 'throughputTuning(runs), the tool as an activity (`localActivity: false`)',
      tuning: throughputTuning(count),
      tools: [benchTool],
      role: 'activity' as const,
    },
    {
      count,
      modelMs,
      name: 'throughputTuning(runs, { localModelCalls: true }), model calls and the tool as local activities',
      tuning: throughputTuning(count, { localModelCalls: true }),
      tools: [benchLocalTool],
      role: 'allLocal' as const,
      localModelCalls: true,
    },
  ]);
  // BENCH_ROLES=tuned,activity measures only those configurations (diagnostics).
  const roles = process.env.BENCH_ROLES?.split(',');
  if (roles) configs.splice(0, configs.length, ...configs.filter((c) => roles.includes(c.role)));
  const targetOf: Partial<Record<Config['role'], (count: number) => string>> = {
    tuned: (count) => `${count} concurrent runs, waveloop's defaults (the read tool as a local activity)`,
    allLocal: () => 'the same, model calls and the tool as local activities (`localModelCalls`)',
  };
  // A virtual machine's speed can drift by a third within minutes, so the configurations of one size take turns
  // for a few rounds (the order reversed every other round), and each row is its median round.
  const rounds = new Map<Config, Figures[]>(configs.map((config) => [config, []]));
  for (const count of counts) {
    const ofSize = configs.filter((config) => config.count === count);
    const roundCount = count <= 100 ? roundsPerSize : 1;
    for (let round = 0; round < roundCount; round++) {
      for (const config of round % 2 === 0 ? ofSize : [...ofSize].reverse())
        rounds.get(config)!.push(await measure(env, config));
    }
  }
  const all: Figures[] = configs.map((config) => medianRound(rounds.get(config)!));
  const percent = (f: Figures) => `${((f.rate / f.ideal) * 100).toFixed(0)} %`;
  const spread = (f: Figures) => {
    const shares = rounds.get(f.config)!.map((r) => (r.rate / r.ideal) * 100);
    return shares.length < 2 ? '–' : `${Math.min(...shares).toFixed(0)}–${Math.max(...shares).toFixed(0)} %`;
  };
  const share = (seconds: number | undefined, f: Figures) =>
    seconds === undefined ? '–' : `${((seconds / f.cpu.wall) * 100).toFixed(0)} %`;
  return {
    id: 4,
    title: `Throughput: concurrent runs of ${ITERATIONS} iterations, the model answering after ${modelMs / 1000} s`,
    sizes: `${counts.join(' and ')} concurrent runs${counts.includes(1000) ? '' : ' (1,000 with BENCH_FULL=1)'}; up to 100 runs, ${roundsPerSize} round${roundsPerSize === 1 ? '' : 's'} in which the configurations take turns (the order reversed every other round), each row its median round by rate`,
    table: {
      head: [
        'runs',
        'worker',
        'completed',
        'wall time',
        'iterations/s',
        'of ideal',
        'of ideal, every round',
        'p95 activity schedule-to-start',
        'CPU: runner, server (of one core)',
        'CPU per iteration',
        'peak RSS (runner)',
      ],
      rows: all.map((f) => [
        f.config.count,
        f.config.name,
        `${f.completed} / ${f.config.count}`,
        `${(f.wallMs / 1000).toFixed(1)} s`,
        f.rate.toFixed(1),
        percent(f),
        spread(f),
        ms(f.p95ScheduleToStartMs, 0),
        `${share(f.cpu.runner, f)}, ${share(f.cpu.server, f)}`,
        ms(f.cpu.perIteration ?? NaN),
        `${Math.round(f.peakRss / 2 ** 20)} MiB`,
      ]),
    },
    targets: all
      .filter((f) => targetOf[f.config.role])
      .map((f) => ({
        target: `${targetOf[f.config.role]!(f.config.count)}: all complete, at ≥ 75 % of the ideal rate (${f.ideal} iterations/s), at ≤ 16 ms of CPU an iteration`,
        value: `${f.completed}/${f.config.count}, ${percent(f)}, ${ms(f.cpu.perIteration ?? NaN)}`,
        met:
          f.completed === f.config.count &&
          f.rate / f.ideal >= 0.75 &&
          f.cpu.perIteration !== undefined &&
          f.cpu.perIteration <= 16,
      })),
    notes: [
      `One worker in the runner process, which also holds the fake model and the client: the RSS and the runner's CPU are upper bounds for the worker. The server is the embedded dev server (one process, SQLite), on the same ${os.cpus().length} cores. CPU per iteration is (runner + server CPU time) / completed iterations, the runs' starts included.`,
      ...counts.map((count) => explain(all.filter((f) => f.config.count === count))),
      ...all.map(
        (f) =>
          `${f.config.count} runs, ${f.config.name}: first model calls ${ms(f.firstCall, 0)} after the start (median; the last ${ms(f.lastFirstCall, 0)}), iterations of ${ms(f.iteration, 0)} (median), the last result ${ms(f.afterLastMs, 0)} after the last model answer. From the histories' event times, per run before its first model call: ${describeTimeline(f.start, 'start')}; per iteration: ${describeTimeline(f.iterationTimeline)}.${f.firstError ? ` First error: ${f.firstError}` : ''}`,
      ),
      'Schedule-to-start is read from the histories (ActivityTaskStarted − ActivityTaskScheduled), over every activity of every run.',
    ],
    data: all.map((f) => ({ ...f, roundRates: rounds.get(f.config)!.map((r) => r.rate) })),
  };
}

/** The round with the median rate (of an even number, the slower middle one): every figure of a row comes from one round. */
function medianRound(rounds: Figures[]): Figures {
  const sorted = [...rounds].sort((a, b) => a.rate - b.rate);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

async function measure(env: BenchEnv, config: Config): Promise<Figures> {
  const { count, tuning, tools } = config;
  const { worker, taskQueue } = await env.worker(tuning, { tools });
  const rss = rssSampler();
  const sampler = cpuSampler(env.serverPid());
  const started = performance.now();
  const { wallMs, cpu, done } = await worker.runUntil(async () => {
    const runs = Array.from({ length: count }, () => {
      const id = runId(`tp${count}`);
      return {
        id,
        goal: goalFor({ run: id, iters: ITERATIONS - 1, calls: 1, delay: config.modelMs }),
        maxIterations: ITERATIONS,
        localModelCalls: config.localModelCalls,
      };
    });
    const results = await runLoops(env, taskQueue, runs);
    return { wallMs: performance.now() - started, cpu: sampler.stop(), done: results };
  });
  const peakRss = rss.stop();
  const completed = done.filter((d) => d.result?.status === 'completed').length;
  const histories = [];
  for (let i = 0; i < done.length; i += 50) {
    histories.push(
      ...(await Promise.all(
        done.slice(i, i + 50).map((d) => env.client.workflow.getHandle(d.id, d.runId).fetchHistory()),
      )),
    );
  }
  // The wall time, split by the fake model's records: until each run's first model call, the iterations, after the last one.
  const arrivals = done.map((d) => env.model.arrivals.get(d.id) ?? []).filter((a) => a.length > 0);
  const firstCalls = arrivals.map((a) => a[0] - started);
  const firstError = done.find((d) => d.error)?.error;
  return {
    config,
    completed,
    wallMs,
    rate: (completed * ITERATIONS) / (wallMs / 1000),
    ideal: count / (config.modelMs / 1000),
    p95ScheduleToStartMs: p95(histories.flatMap(scheduleToStart)),
    peakRss,
    cpu: {
      ...cpu,
      perIteration:
        cpu.server === undefined || !completed
          ? undefined
          : ((cpu.runner + cpu.server) * 1000) / (completed * ITERATIONS),
    },
    firstCall: median(firstCalls),
    lastFirstCall: Math.max(...firstCalls),
    iteration: median(arrivals.flatMap((a) => gaps(a))),
    afterLastMs: started + wallMs - Math.max(...arrivals.map((a) => a[a.length - 1])) - config.modelMs,
    start: startTimeline(histories),
    iterationTimeline: iterationTimeline(histories),
    firstError: firstError ? String(firstError) : undefined,
  };
}

/**
 * Where the wall time of the target row went, and the rate this machine's cores allow at the CPU an
 * iteration cost; what the tool as an activity would add.
 */
function explain(rows: Figures[]): string {
  const [main, activity] = (['tuned', 'activity'] as const).map((role) => rows.find((f) => f.config.role === role));
  if (!main?.cpu.perIteration)
    return `${rows[0]?.config.count} runs: the server's CPU time could not be read, so no CPU bound is given.`;
  const cores = os.cpus().length;
  const bound = (cores * 1000) / main.cpu.perIteration;
  const s = main.start;
  const counted = (n: number, one: string, many: string) =>
    n >= 0.5 ? `${n.toFixed(0)} ${n >= 1.5 ? many : one}` : undefined;
  const trips = [
    counted(s.workflowTasks, 'workflow task', 'workflow tasks'),
    counted(s.toolActivities, 'activity', 'activities'),
    counted(s.localActivities, 'local activity', 'local activities'),
  ]
    .filter(Boolean)
    .join(', ');
  return (
    `${main.config.count} runs, throughputTuning(runs), the read tool as a local activity: the wall time is the runs' start (their first model calls came ${ms(main.firstCall, 0)} after it, the median; before it every run needs ${trips}, all the runs at the same moment) and ${ITERATIONS} iterations of ${ms(main.iteration, 0)} each instead of ${ms(main.config.modelMs, 0)}. ` +
    `Both wait for CPU: the runner and the server used ${((main.cpu.runner + main.cpu.server!) / main.cpu.wall).toFixed(1)} of the ${cores} cores, and an iteration cost ${ms(main.cpu.perIteration)} of CPU, so at that cost this machine allows at most ${bound.toFixed(0)} iterations/s (${((bound / main.ideal) * 100).toFixed(0)} % of the ideal). ` +
    `The tool as an activity costs one workflow task and one activity more per iteration (${activity?.cpu.perIteration ? ms(activity.cpu.perIteration - main.cpu.perIteration) : '–'} of CPU per iteration here).`
  );
}
