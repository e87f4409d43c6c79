import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ScenarioResult } from '../../bench/support/report';

// Runs `npm run bench` as a user would, at the smoke sizes (BENCH_SMOKE=1): every scenario must
// still run and do what it measures. No figure is asserted: a machine's speed is not the code's.
// The bench is compiled file by file (`transpile`), as `tsc -p tsconfig.bench.json` emits it, in a
// second instead of fifteen; `npm run build` type-checks the same files.

const ROOT = path.join(__dirname, '..', '..');
const SMOKE_TIMEOUT = 600_000;

interface SmokeReport {
  machine: {
    sizes: {
      overhead: { iterations: number };
      realistic: { iterations: number };
      throughput: number[];
      longRun: number;
      pending: { done: number; waiting: number };
    };
    agentsLeftOut?: string;
  };
  results: ScenarioResult[];
}

interface Engine {
  engine: string;
  iterations: number;
  error?: string;
}

let exitCode: number | null;
let stderr = '';
let report: SmokeReport;
let markdown: string;

const scenario = (id: number) => report.results.find((r) => r.id === id)!;
const INTEGRATION = '@temporalio/openai-agents';

/** Emits what `tsc -p tsconfig.bench.json` emits (dist-bench/), file by file, without type-checking. */
function transpile(): void {
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(ROOT, 'tsconfig.bench.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  )!;
  const { rootDir, outDir } = config.options;
  for (const file of config.fileNames) {
    const { outputText } = ts.transpileModule(fs.readFileSync(file, 'utf8'), {
      compilerOptions: { ...config.options, sourceMap: false },
      fileName: file,
    });
    const target = path.join(outDir!, path.relative(rootDir!, file)).replace(/\.ts$/, '.js');
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, outputText);
  }
}

beforeAll(async () => {
  transpile();
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'waveloop-bench-smoke-test-')), 'results.json');
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    WAVELOOP_TEMPORAL_BIN: process.env.WAVELOOP_TEMPORAL_BIN,
    BENCH_SMOKE: '1',
    BENCH_OUT: out,
  };
  exitCode = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(process.execPath, [path.join('dist-bench', 'bench', 'run.js')], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', resolve);
  });
  if (!fs.existsSync(out)) throw new Error(`the bench wrote no report (exit ${exitCode}):\n${stderr.slice(-4000)}`);
  report = JSON.parse(fs.readFileSync(out, 'utf8')) as SmokeReport;
  markdown = fs.readFileSync(path.join(path.dirname(out), 'BENCHMARKS.md'), 'utf8');
  fs.rmSync(path.dirname(out), { recursive: true, force: true });
}, SMOKE_TIMEOUT);

describe('bench (BENCH_SMOKE=1)', () => {
  it('runs scenarios 1–15, none fails, and exits 0', () => {
    const failed = report.results
      .filter((r) => r.sizes === 'failed')
      .map((r) => `scenario ${r.id} (${r.title}): ${JSON.stringify(r.data)}`);
    expect(failed).toEqual([]);
    expect(report.results.map((r) => r.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]);
    expect(exitCode, stderr.slice(-4000)).toBe(0);
  });

  it('renders its report as BENCHMARKS.md is: the machine, the targets, and a section with a table for every scenario', () => {
    expect(markdown).toMatch(/^# Benchmarks\n/);
    expect(markdown).toContain('\n## Machine\n');
    expect(markdown).toContain('\n## Targets\n');
    // The measurements kept by hand (bench/measured-changes.md) end every report.
    expect(markdown).toContain('\n## Measured changes\n');
    for (const result of report.results) {
      const section = markdown.split(`\n## ${result.id}. `)[1]?.split('\n## ')[0];
      expect(section, `scenario ${result.id}`).toBeDefined();
      expect(section, `scenario ${result.id}`).toContain(`| ${result.table.head.join(' | ')} |`);
    }
  });

  it.each([
    [1, 'overhead'],
    [2, 'realistic'],
  ] as const)('scenario %i: every engine measures all its iterations without an error', (id, sizes) => {
    const { engines } = scenario(id).data as { engines: Engine[] };
    const iterations = report.machine.sizes[sizes].iterations;
    expect(engines.map((e) => e.engine)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^waveloop defaults/),
        expect.stringMatching(/^waveloop, the tool as an activity/),
        expect.stringMatching(/floor/),
        INTEGRATION,
      ]),
    );
    for (const e of engines) {
      // A smoke run leaves Temporal's integration out.
      if (e.engine === INTEGRATION && report.machine.agentsLeftOut) expect(e.error).toBe(report.machine.agentsLeftOut);
      else expect({ iterations: e.iterations, error: e.error }, e.engine).toEqual({ iterations, error: undefined });
    }
  });

  it('scenario 3: every worker configuration times every wave width', () => {
    const data = scenario(3).data as Record<string, Record<string, number>>;
    expect(Object.keys(data).length).toBeGreaterThanOrEqual(3);
    for (const [worker, times] of Object.entries(data)) {
      expect(Object.keys(times).length, worker).toBeGreaterThanOrEqual(2);
      for (const t of Object.values(times)) expect(t, worker).toBeGreaterThan(0);
    }
  });

  it('scenario 4: every configuration completes all its concurrent runs', () => {
    const rows = scenario(4).data as Array<{
      config: { count: number; role: string };
      completed: number;
      firstError?: string;
    }>;
    const [count] = report.machine.sizes.throughput;
    expect(rows.map((r) => r.config.role).sort()).toEqual(['activity', 'allLocal', 'sdk', 'tuned']);
    for (const r of rows)
      expect({ runs: r.config.count, completed: r.completed, error: r.firstError }, r.config.role).toEqual({
        runs: count,
        completed: count,
        error: undefined,
      });
  });

  it('scenario 5: history grows by some bytes an iteration; the long run hands over and reaches its last iteration', () => {
    const data = scenario(5).data as {
      growth: Array<{ iteration: number; incBytes: number }>;
      chain: Array<{ events: number }>;
      longResult: { status: string; iterations: number };
    };
    expect(data.growth.length).toBeGreaterThan(0);
    for (const g of data.growth) expect(g.incBytes, `iteration ${g.iteration}`).toBeGreaterThan(0);
    expect(data.longResult).toEqual({ status: 'max_iterations', iterations: report.machine.sizes.longRun });
    expect(data.chain.length).toBeGreaterThan(1);
  });

  it('scenario 6: the run completes after its worker is killed during a model call', () => {
    const row = scenario(6).data as Record<string, number>;
    expect(row.killToRunEnd).toBeGreaterThan(0);
    expect(row.killToCompleted).toBeGreaterThan(0);
  });

  it('scenario 7: the goal tree decomposes into all its goals and is achieved', () => {
    const trees = scenario(7).data as Array<{ goals: number; statuses: string }>;
    expect(trees.length).toBeGreaterThan(0);
    for (const t of trees) expect(t.statuses).toBe('achieved');
    expect(trees[0].goals).toBe(10);
  });

  it('scenario 8: the tool as a regular and as a local activity both run every iteration', () => {
    const { figures } = scenario(8).data as {
      figures: Record<string, { iterations: number; timeline: { localActivities: number } }>;
    };
    const iterations = report.machine.sizes.overhead.iterations;
    expect(figures['regular activity'].iterations).toBe(iterations);
    expect(figures['local activity'].iterations).toBe(iterations);
    expect(figures['local activity'].timeline.localActivities).toBeGreaterThan(0);
  });

  it('scenario 9: the list of decisions waiting holds every waiting run, each read of it', () => {
    const { times, listed } = scenario(9).data as { times: number[]; listed: number };
    expect(listed).toBe(report.machine.sizes.pending.waiting);
    expect(times).toHaveLength(5);
  });

  it('scenario 10: every run completes all its calls, never more than maxParallelTools of them in flight, and sometimes that many', () => {
    const data = scenario(10).data as {
      runs: number;
      calls: number;
      width: number;
      completed: number;
      toolCalls: number;
      inFlight: number[];
    };
    expect(data.completed).toBe(data.runs);
    expect(data.toolCalls).toBe(data.runs * data.calls);
    expect(Math.max(...data.inFlight)).toBe(data.width);
  });

  it('scenario 11: every run on the worker processes completes with exactly its two model calls, the window is measured, no 429', () => {
    const data = scenario(11).data as {
      fakeLimit: { requests: number; windowMs: number };
      runs: number;
      completed: number;
      exact: number;
      requests: number;
      most: number;
      refused: number;
    };
    expect(data.completed).toBe(data.runs);
    expect(data.exact).toBe(data.runs);
    expect(data.requests).toBe(2 * data.runs);
    expect(data.most).toBeGreaterThan(0);
    // Sized so that a limit the workers did not hold would show: their model calls at once are more
    // than the fake takes in its window, so it would answer 429s.
    expect(2 * data.runs).toBeGreaterThan(data.fakeLimit.requests);
    expect(data.refused).toBe(0);
  });

  it('scenario 12: both sittings complete every run of both tenants and measure B', () => {
    const data = scenario(12).data as {
      sizes: { a: number; b: number };
      without: { completed: number; bMs: number };
      withKeys: { completed: number; bMs: number };
    };
    expect(data.without.completed).toBe(data.sizes.a + data.sizes.b);
    expect(data.withKeys.completed).toBe(data.sizes.a + data.sizes.b);
    expect(data.withKeys.bMs).toBeGreaterThan(0);
  });

  it('scenario 14: each kind of run (the child alone, tool calls, agent calls) completed and was timed', () => {
    const data = scenario(14).data as { times: Record<string, number[]>; overOne: number; overEight: number };
    expect(Object.keys(data.times)).toHaveLength(5);
    for (const [kind, times] of Object.entries(data.times)) {
      expect(times.length, kind).toBeGreaterThan(0);
      expect(Math.min(...times), kind).toBeGreaterThan(0);
    }
    expect(Number.isFinite(data.overOne)).toBe(true);
    expect(Number.isFinite(data.overEight)).toBe(true);
  });

  it('scenario 15: every run started waits for its approval on the worker process; the approved ones complete', () => {
    const data = scenario(15).data as {
      runs: number;
      approve: number;
      waited: number;
      approvalMs: number[];
      completed: number;
      cache: number;
    };
    // `waveloop worker`'s own worker keeps waveloop's bounded workflow cache (docs/production.md).
    expect(data.cache).toBe(1_000);
    expect(data.runs).toBeGreaterThan(0);
    expect(data.waited).toBe(data.runs);
    expect(data.approvalMs).toHaveLength(data.approve);
    expect(data.completed).toBe(data.approve);
  });
});
