import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TEMPORAL_CLI_VERSION } from '../src/server/temporal-cli';
import { agentCalls, type AgentCallSizes } from './scenarios/agent-calls';
import { eventStreams, type EventStreamSizes } from './scenarios/event-streams';
import { fairness, type FairnessSizes } from './scenarios/fairness';
import { goalTrees } from './scenarios/goal-tree';
import { historyGrowth } from './scenarios/history';
import { localActivities } from './scenarios/local-activities';
import { modelLimit, type ModelLimitSizes } from './scenarios/model-limit';
import { engineOverhead, realisticModel, type OverheadSizes } from './scenarios/overhead';
import { pendingDecisions, type PendingSizes } from './scenarios/pending';
import { recovery } from './scenarios/recovery';
import { throughput } from './scenarios/throughput';
import { waitingRuns, type WaitingRunsSizes } from './scenarios/waiting-runs';
import { waveWidth, type WaveWidthSizes } from './scenarios/wave-width';
import { waves } from './scenarios/waves';
import { BenchEnv } from './support/env';
import { agentsVersions, prepareAgents } from './support/openai-agents';
import { markdownTable, mergeLarge, type Report, type ScenarioResult } from './support/report';
import { loadAverage } from './support/stats';

const ROOT = path.join(__dirname, '..', '..');
/**
 * `BENCH_SMOKE=1` runs every scenario at tiny sizes, to check that each one still runs (`npm run
 * test:bench` does, test/bench/scenarios.smoke.ts): it writes its report to BENCH_OUT (or a temporary file) and nothing
 * else, and exits with status 1 when a scenario failed. Its figures mean nothing.
 */
const SMOKE = process.env.BENCH_SMOKE === '1';
const FULL = process.env.BENCH_FULL === '1' && !SMOKE;
/**
 * `BENCH_ONLY=1,3` runs those scenarios only and writes bench/results.partial.json, not the report;
 * with BENCH_FULL=1 as well, it writes those scenarios into bench/results.full.json (the others'
 * large sizes stay), which BENCHMARKS.md shows in a section of its own ("Large sizes") next to the
 * latest full default run (bench/results.json).
 */
const ONLY = process.env.BENCH_ONLY?.split(',').map(Number);
const RESULTS = path.join(ROOT, 'bench', 'results.json');
const FULL_RESULTS = path.join(ROOT, 'bench', 'results.full.json');

/** What each scenario runs. */
interface Sizes {
  overhead: OverheadSizes;
  realistic: OverheadSizes;
  waveRepeats: number;
  /** Scenario 3's wave widths (N = 1, 4, 16, 64 unless given). */
  waveSizes?: number[];
  throughput: number[];
  /** Scenario 4's rounds per size (BENCH_THROUGHPUT_ROUNDS, or 3, unless given). */
  throughputRounds?: number;
  /** How long scenario 4's model takes to answer (1 s unless given). */
  throughputModelMs?: number;
  history: number;
  longRun: number;
  /** Scenario 5's long run hands over past this many events (the default 2,000 unless given). */
  longRunMaxHistoryEvents?: number;
  trees: number[];
  /** Scenario 9's runs: completed ones, and ones waiting for an approval. */
  pending: PendingSizes;
  /** Scenario 10's runs, calls per wave and `maxParallelTools`. */
  waveWidth: WaveWidthSizes;
  /** Scenario 11's runs, worker processes and `WAVELOOP_MODEL_RPM`. */
  modelLimit: ModelLimitSizes;
  /** Scenario 12's runs of tenants A and B, and how much later B starts. */
  fairness: FairnessSizes;
  /** Scenario 13's runs with an open event stream each, and how many of them are timed. */
  eventStreams: EventStreamSizes;
  /** Scenario 14's runs of each kind (agent calls and tool calls). */
  agentCalls: AgentCallSizes;
  /** Scenario 15's runs waiting for an approval on one worker process, how many are approved, and its cache size. */
  waitingRuns: WaitingRunsSizes;
}

const DEFAULT_SIZES: Sizes = SMOKE
  ? {
      overhead: { runs: 1, iterations: 3 },
      realistic: { runs: 1, iterations: 2, modelDelayMs: 50 },
      waveRepeats: 1,
      waveSizes: [1, 4],
      throughput: [3],
      throughputRounds: 1,
      throughputModelMs: 50,
      history: 12,
      longRun: 30,
      longRunMaxHistoryEvents: 100,
      trees: [10],
      pending: { done: 3, waiting: 2 },
      waveWidth: { runs: 2, calls: 6, width: 2 },
      modelLimit: { runs: 10, workers: 2, rpm: 120, windowSeconds: 5 },
      fairness: { a: 6, b: 1, delayMs: 200 },
      eventStreams: { streams: 3, timed: 2, watchSeconds: 1 },
      agentCalls: { repeats: 1 },
      waitingRuns: { runs: 10, approve: 5 },
    }
  : FULL
    ? {
        overhead: { runs: 3, iterations: 300 },
        realistic: { runs: 1, iterations: 60 },
        waveRepeats: 5,
        throughput: [100, 1000],
        history: 200,
        longRun: 10_000,
        trees: [10, 100],
        pending: { done: 950, waiting: 50 },
        waveWidth: { runs: 50, calls: 40, width: 8 },
        modelLimit: { runs: 200, workers: 2, rpm: 120 },
        fairness: { a: 300, b: 10, delayMs: 3_000 },
        eventStreams: { streams: 200, timed: 20, watchSeconds: 10 },
        agentCalls: { repeats: 20 },
        waitingRuns: { runs: 10_000, approve: 1_000 },
      }
    : {
        overhead: { runs: 2, iterations: 100 },
        realistic: { runs: 1, iterations: 20 },
        waveRepeats: 3,
        throughput: [100],
        history: 200,
        longRun: 1_000,
        trees: [10, 100],
        pending: { done: 950, waiting: 50 },
        waveWidth: { runs: 50, calls: 40, width: 8 },
        modelLimit: { runs: 200, workers: 2, rpm: 120 },
        fairness: { a: 300, b: 10, delayMs: 3_000 },
        eventStreams: { streams: 200, timed: 20, watchSeconds: 10 },
        agentCalls: { repeats: 10 },
        waitingRuns: { runs: 1_000, approve: 200 },
      };

/** The sizes, with `BENCH_SIZES` (JSON, e.g. `{"modelLimit":{"runs":20,"workers":2,"rpm":120}}`) over them, field by field. */
const SIZES: Sizes = {
  ...DEFAULT_SIZES,
  ...(process.env.BENCH_SIZES ? (JSON.parse(process.env.BENCH_SIZES) as Partial<Sizes>) : {}),
};

const log = (line: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}`);

async function run(): Promise<void> {
  const started = Date.now();
  const machine = {
    cpu: `${os.cpus()[0]?.model ?? 'unknown'} × ${os.cpus().length}`,
    memory: `${Math.round(os.totalmem() / 2 ** 30)} GiB`,
    os: `${os.type()} ${os.release()} (${os.arch()})`,
    node: process.version,
    temporalCli: TEMPORAL_CLI_VERSION,
    temporalSdk: (
      JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', '@temporalio', 'worker', 'package.json'), 'utf8')) as {
        version: string;
      }
    ).version,
    openaiAgents: agentsVersions(),
    commit: gitCommit(),
    date: new Date().toISOString().slice(0, 16).replace('T', ' '),
    loadAtStart: loadAverage(),
    full: FULL,
    smoke: SMOKE,
    sizes: SIZES,
    agentsLeftOut: undefined as string | undefined,
  };
  log(
    `machine: ${machine.cpu}, load ${machine.loadAtStart}; ${SMOKE ? 'smoke sizes (BENCH_SMOKE)' : FULL ? 'BENCH_FULL sizes' : 'default sizes'}`,
  );
  // A smoke run checks waveloop's scenarios only: Temporal's integration is measured, not checked.
  const agentsProblem = SMOKE
    ? "left out of smoke runs (they check waveloop's scenarios; a run without BENCH_SMOKE measures it)"
    : prepareAgents(log);
  if (agentsProblem) log(`Temporal's integration will be left out: ${agentsProblem}`);
  machine.openaiAgents = agentsVersions();
  machine.agentsLeftOut = agentsProblem;

  const env = await new BenchEnv().start();
  const results: ScenarioResult[] = [];
  const scenarios: Array<[number, string, () => Promise<ScenarioResult>]> = [
    [1, 'engine overhead', () => engineOverhead(env, SIZES.overhead, agentsProblem)],
    [2, 'realistic model', () => realisticModel(env, SIZES.realistic, agentsProblem)],
    [3, 'wave parallelism', () => waves(env, SIZES.waveRepeats, agentsProblem, SIZES.waveSizes)],
    [
      4,
      'throughput',
      () =>
        throughput(
          env,
          process.env.BENCH_RUNS ? process.env.BENCH_RUNS.split(',').map(Number) : SIZES.throughput,
          SIZES.throughputRounds,
          SIZES.throughputModelMs,
        ),
    ],
    [5, 'history growth', () => historyGrowth(env, SIZES.history, SIZES.longRun, SIZES.longRunMaxHistoryEvents)],
    [6, 'recovery', () => recovery(env)],
    [7, 'goal trees', () => goalTrees(env, SIZES.trees)],
    [8, 'local activities', () => localActivities(env, SIZES.overhead.iterations)],
    [9, 'pending decisions', () => pendingDecisions(env, SIZES.pending)],
    [10, 'wave width', () => waveWidth(env, SIZES.waveWidth)],
    [11, 'shared model limit', () => modelLimit(env, SIZES.modelLimit)],
    [12, 'fairness', () => fairness(env, SIZES.fairness)],
    [13, 'event streams', () => eventStreams(env, SIZES.eventStreams)],
    [14, 'agent calls', () => agentCalls(env, SIZES.agentCalls)],
    [15, 'waiting runs', () => waitingRuns(env, SIZES.waitingRuns)],
  ];
  try {
    for (const [id, name, scenario] of scenarios) {
      if (ONLY && !ONLY.includes(id)) continue;
      log(`scenario ${id}: ${name} (load ${loadAverage()})`);
      const t0 = Date.now();
      const result = await scenario().catch((err: unknown): ScenarioResult => ({
        id,
        title: name,
        sizes: 'failed',
        table: {
          head: ['error'],
          rows: [
            [
              String(err instanceof Error ? err.message : err)
                .replaceAll('|', '/')
                .replaceAll('\n', ' '),
            ],
          ],
        },
        targets: [],
        notes: ['The scenario failed; its error is above.'],
        data: { error: String(err) },
      }));
      env.model.reset();
      results.push({
        ...result,
        notes: [
          ...result.notes,
          `Took ${((Date.now() - t0) / 1000).toFixed(0)} s; load average after it: ${loadAverage()}.`,
        ],
      });
      log(
        `scenario ${id} done in ${((Date.now() - t0) / 1000).toFixed(0)} s\n${markdownTable(result.table.head, result.table.rows)}`,
      );
    }
  } finally {
    await env.stop();
  }
  const report: Report = {
    machine: { ...machine, loadAtEnd: loadAverage(), minutes: (Date.now() - started) / 60_000 },
    results,
  };
  writeReport(report);
  const failed = results.filter((r) => r.sizes === 'failed').map((r) => r.id);
  if (SMOKE && failed.length) {
    log(`smoke run: scenario ${failed.join(', ')} failed (the errors are in the report)`);
    process.exitCode = 1;
  }
}

/**
 * Writes the raw figures and, unless only some scenarios ran at the default sizes, BENCHMARKS.md;
 * a smoke run writes its figures to BENCH_OUT (or a temporary file) and its report as markdown
 * beside them (BENCHMARKS.md in that directory), and nothing else.
 */
function writeReport(report: Report): void {
  const json = (r: Report) => `${JSON.stringify(r, null, 2)}\n`;
  if (SMOKE) {
    const out =
      process.env.BENCH_OUT ||
      path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'waveloop-bench-smoke-')), 'results.json');
    fs.writeFileSync(out, json(report));
    fs.writeFileSync(path.join(path.dirname(out), 'BENCHMARKS.md'), renderMarkdown(report, undefined, kept()));
    log(
      `wrote ${out} and BENCHMARKS.md beside it (BENCH_SMOKE: the repository's BENCHMARKS.md and bench/results*.json are left as they are)`,
    );
    return;
  }
  if (ONLY && !FULL) {
    fs.writeFileSync(path.join(ROOT, 'bench', 'results.partial.json'), json(report));
    log('wrote bench/results.partial.json (BENCH_ONLY: BENCHMARKS.md is left as it is)');
    return;
  }
  const read = (file: string) =>
    fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Report) : undefined;
  // A run of some scenarios at the large sizes replaces theirs and keeps the others' (a whole run at
  // the large sizes supersedes them all).
  const large = ONLY ? mergeLarge(read(FULL_RESULTS), report) : report;
  fs.writeFileSync(ONLY ? FULL_RESULTS : RESULTS, json(large));
  if (!ONLY && FULL) fs.rmSync(FULL_RESULTS, { force: true });
  const main = read(RESULTS);
  if (!main) {
    log(`wrote ${path.relative(ROOT, FULL_RESULTS)}; BENCHMARKS.md needs a default run (bench/results.json) first`);
    return;
  }
  fs.writeFileSync(path.join(ROOT, 'BENCHMARKS.md'), renderMarkdown(main, ONLY ? large : read(FULL_RESULTS), kept()));
  log(
    `wrote BENCHMARKS.md and ${path.relative(ROOT, ONLY ? FULL_RESULTS : RESULTS)} in ${Number(report.machine.minutes).toFixed(1)} min`,
  );
}

function gitCommit(): string {
  try {
    const sha = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain'], { cwd: ROOT, encoding: 'utf8' }).trim() !== '';
    return dirty ? `${sha} (with uncommitted changes)` : sha;
  } catch {
    return 'unknown';
  }
}

type Machine = Record<string, string | number | boolean | Record<string, string>>;

/**
 * The measurements kept by hand (bench/measured-changes.md): before/after figures of one change,
 * taken in one sitting, and runs at sizes of their own. BENCHMARKS.md ends with them, whatever run
 * wrote it.
 */
const KEPT = path.join(ROOT, 'bench', 'measured-changes.md');

function kept(): string | undefined {
  return fs.existsSync(KEPT) ? fs.readFileSync(KEPT, 'utf8').trim() : undefined;
}

function renderMarkdown(report: Report, full: Report | undefined, keptByHand?: string): string {
  const m = report.machine as Machine;
  const lines = [
    '# Benchmarks',
    '',
    'Written by `npm run bench` (`BENCH_FULL=1 npm run bench` for the large sizes); the raw figures are in',
    '[`bench/results.json`](bench/results.json). Every engine runs on the same machine, against the same',
    'Temporal dev server (the Temporal CLI waveloop embeds, started by the runner on free ports with an',
    'in-memory database and the dynamic config waveloop gives every server it starts:',
    '`src/server/tuning.ts`; the embedded default keeps a SQLite file in WAL mode, which measured the',
    'same or a few points slower in scenario 4) and the same fake',
    "OpenAI-compatible model (`test/support/fake-model.ts`, the tests' own, in its goal-encoded mode),",
    'with the same tool. Times are measured by the fake model: the gap between two model calls of one',
    'run is one iteration (model call + tool wave + all',
    'the engine adds). No time here is asserted anywhere; the targets are in the table below.',
    '',
    '## Machine',
    '',
    markdownTable(
      ['', ''],
      [
        ['CPU', String(m.cpu)],
        ['memory', String(m.memory)],
        ['OS', String(m.os)],
        ['Node.js', String(m.node)],
        ['Temporal CLI (dev server)', String(m.temporalCli)],
        ['Temporal TypeScript SDK (waveloop)', String(m.temporalSdk)],
        [
          "Temporal's integration",
          Object.entries(m.openaiAgents as Record<string, string>)
            .map(([k, v]) => `${k} ${v}`)
            .join(', '),
        ],
        ...runRows(m),
      ],
    ),
    '',
    'Other test suites may have been running on this machine at the same time: the load averages above',
    'and after each scenario say how busy it was.',
    '',
    '## Targets',
    '',
    targetTable(report.results),
    '',
    ...sections(report.results, '##'),
    ...(full ? fullSection(full) : []),
    ...(keptByHand ? [keptByHand, ''] : []),
  ];
  return `${lines.join('\n')}\n`;
}

/** The rows of the machine table that belong to one run. */
function runRows(m: Machine): string[][] {
  return [
    ['waveloop commit', String(m.commit)],
    ['date (UTC)', String(m.date ?? 'unknown')],
    [
      'sizes',
      m.full ? 'BENCH_FULL=1 (large)' : 'default (BENCH_FULL=1 runs 1,000 concurrent runs and a 10,000-iteration run)',
    ],
    ['load average (1, 5, 15 min)', `${m.loadAtStart} at the start; ${m.loadAtEnd} at the end`],
    ['duration', `${Number(m.minutes).toFixed(1)} min`],
  ];
}

function targetTable(results: ScenarioResult[]): string {
  const rows = results.flatMap((r) =>
    r.targets.map((t) => [
      `${r.id}`,
      t.target,
      t.value,
      typeof t.met === 'string' ? t.met : t.met ? 'met' : '**missed**',
    ]),
  );
  return markdownTable(['scenario', 'target', 'measured', ''], rows);
}

function sections(results: ScenarioResult[], level: string): string[] {
  return results.flatMap((r) => [
    `${level} ${r.id}. ${r.title}`,
    '',
    `Sizes: ${r.sizes}.`,
    '',
    markdownTable(r.table.head, r.table.rows),
    '',
    ...r.notes.map((note) => `- ${note}`),
    '',
  ]);
}

/** The large sizes of some scenarios (`BENCH_FULL=1 BENCH_ONLY=…`), from bench/results.full.json: a run of its own. */
function fullSection(full: Report): string[] {
  const ids = full.results.map((r) => r.id).join(',');
  return [
    `## Large sizes (\`BENCH_FULL=1 BENCH_ONLY=${ids} npm run bench\`)`,
    '',
    'Runs of their own (the latest one below; a scenario from an earlier one says so), on the same',
    'machine; the raw figures are in [`bench/results.full.json`](bench/results.full.json).',
    '',
    markdownTable(['', ''], runRows(full.machine as Machine)),
    '',
    targetTable(full.results),
    '',
    ...sections(full.results, '###'),
  ];
}

run().catch((err) => {
  console.error(err);
  process.exit(1);
});
