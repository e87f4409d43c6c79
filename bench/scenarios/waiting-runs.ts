import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@temporalio/client';
import { WaveloopClient } from '../../src/client/waveloop-client';
import { backOfficeAgent } from '../../src/demo/agents';
import { DEMO_GOAL } from '../../src/demo/demo-script';
import { startScriptedModel } from '../../src/demo/scripted-model';
import { blobStoreIn } from '../../src/payloads/blob-store';
import { waveloopDataConverter } from '../../src/payloads/data-converter';
import { DEFAULT_WORKER_TUNING } from '../../src/worker/tuning';
import type { BenchEnv } from '../support/env';
import { ms, type ScenarioResult } from '../support/report';
import { median, p95, sleep } from '../support/stats';
import { runId } from '../support/waveloop';

export interface WaitingRunsSizes {
  /** Runs of the demo's goal started, each left waiting for the approval of its `update_user` call. */
  runs: number;
  /** How many of them are approved (spread evenly over the order they were started in). */
  approve: number;
  /** The worker's `maxCachedWorkflows` (default: the SDK's, from the worker process's heap limit). */
  cache?: number;
}

/** Starts in flight at once. */
const STARTS_IN_FLIGHT = 50;
/** Approvals in flight at once: people clicking through an inbox. */
const APPROVALS_IN_FLIGHT = 25;
const TERMINATIONS_IN_FLIGHT = 50;
/** How often the waiting runs are counted (and the worker's RSS read) while they start. */
const POLL_MS = 500;
/** The scenario gives up when the count of waiting runs has not grown for this long. */
const STALL_MS = 180_000;
/** Who approves (the demo agent's `update_user` asks one approval, of anyone: no group, no four eyes). */
const APPROVER = 'bench-approver';
const MiB = 2 ** 20;
const GiB = 2 ** 30;
/** The compiled repository's root (dist-bench/bench/scenarios → the repository). */
const ROOT = path.join(__dirname, '..', '..', '..');

/**
 * Runs waiting for a person: `runs` runs of the demo's goal ("Find Bob and update his company to
 * EPAM", the back-office agent) on ONE worker, the CLI's (`waveloop worker`'s own `createCliWorker`:
 * the demo's tools and agent, its database and audit trail in a temporary data directory) in a
 * process of its own, against the scripted demo model. Each run looks Bob up (two tool calls, three
 * model calls) and then waits for the approval of `update_user`. Measured: the time to start them
 * all and until all wait (counted by the visibility store), the worker's and the server's RSS, then
 * `approve` approvals, 25 in flight, each timed, and the time until the approved runs complete.
 * `BENCH_WAITING_WORKER=cli` runs `node bin/waveloop.js worker` (dist/) instead, at waveloop's cache size.
 */
export async function waitingRuns(env: BenchEnv, sizes: WaitingRunsSizes): Promise<ScenarioResult> {
  const approve = Math.min(sizes.approve, sizes.runs);
  const cli = process.env.BENCH_WAITING_WORKER === 'cli';
  if (cli && sizes.cache !== undefined)
    throw new Error('waveloop worker takes no cache size (BENCH_WAITING_WORKER=cli)');
  const model = await startScriptedModel();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'waveloop-bench-waiting-'));
  const taskQueue = runId('waiting');
  // A client of the worker's data directory (its claim-check store), as the CLI on that machine is.
  const temporal = new Client({
    connection: env.client.connection,
    dataConverter: waveloopDataConverter(blobStoreIn(dataDir)),
  });
  const client = new WaveloopClient(temporal, taskQueue, { identity: 'bench-starter' });
  const ids = Array.from({ length: sizes.runs }, (_, i) => `waiting-${i}-${runId('run')}`);
  const ended = new Set<string>();
  const serverPid = env.serverPid();
  const serverAtStart = procMemory(serverPid);
  let worker: DemoWorker | undefined;
  const settings = {
    TEMPORAL_ADDRESS: env.address,
    WAVELOOP_DATA_DIR: dataDir,
    WAVELOOP_TASK_QUEUE: taskQueue,
    OPENAI_BASE_URL: model.baseURL,
    OPENAI_API_KEY: 'scripted-demo',
  };
  try {
    // Started once and stopped first, so the workflow bundle is built (webpack, hundreds of MiB) in
    // that process, not in the one measured: it reads it from the bundle cache, as a restarted worker does.
    const p0 = performance.now();
    await (await startDemoWorker(settings, dataDir, cli ? undefined : sizes.cache)).stop();
    const prepared = performance.now() - p0;
    worker = await startDemoWorker(settings, dataDir, cli ? undefined : sizes.cache);
    const atReady = procMemory(worker.pid);
    const heapAtReady = await worker.memory();
    // The peak from here on: the RSS of its start (the workflow bundle, built once and cached) is not the runs'.
    const peakReset = resetPeak(worker.pid);

    // Start them all, STARTS_IN_FLIGHT at a time, counting the waiting runs meanwhile.
    const samples: Array<{ at: number; waiting: number; rss?: number }> = [];
    const t0 = performance.now();
    let startedAll: number | undefined;
    const starting = inPool(ids, STARTS_IN_FLIGHT, async (workflowId) => {
      await client.runs.start({ goal: DEMO_GOAL, agent: backOfficeAgent.name }, { workflowId });
    }).then(() => (startedAll = performance.now() - t0));
    const waitingQuery = `WaveloopStatus = 'waiting_for_approval' AND TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Running'`;
    const closedQuery = `TaskQueue = '${taskQueue}' AND ExecutionStatus != 'Running'`;
    let grewAt = performance.now();
    let waiting = 0;
    let startError: unknown;
    starting.catch((err: unknown) => (startError = err));
    for (;;) {
      if (startError) throw startError;
      const { count } = await temporal.workflow.count(waitingQuery);
      samples.push({ at: performance.now() - t0, waiting: count, rss: procMemory(worker.pid).rss });
      if (count > waiting) grewAt = performance.now();
      if (samples.length % 30 === 0)
        console.error(`[waiting runs] ${count} of ${sizes.runs} wait, ${mib(samples.at(-1)!.rss)} worker RSS`);
      waiting = count;
      if (waiting >= sizes.runs && startedAll !== undefined) break;
      const closed = (await temporal.workflow.count(closedQuery)).count;
      if (closed > 0)
        throw new Error(`${closed} runs ended instead of waiting: ${await firstClosed(temporal, closedQuery)}`);
      if (!worker.alive()) throw new Error(`the worker process exited: ${worker.stderrTail()}`);
      if (performance.now() - grewAt > STALL_MS)
        throw new Error(`only ${waiting} of ${sizes.runs} runs wait for approval, none more for ${STALL_MS / 1000} s`);
      await sleep(POLL_MS);
    }
    const allWaiting = performance.now() - t0;
    await starting;
    const whenWaiting = procMemory(worker.pid);
    const heapWhenWaiting = await worker.memory();
    const serverWhenWaiting = procMemory(serverPid);

    // Approve `approve` of them, spread over the order they started in, APPROVALS_IN_FLIGHT at a time.
    const step = sizes.runs / approve;
    const chosen = Array.from({ length: approve }, (_, i) => ids[Math.floor(i * step)]);
    const reads: number[] = [];
    const approvals: number[] = [];
    const outcomes: Array<Promise<{ at: number; status: string; answer: string }>> = [];
    const a0 = performance.now();
    // An approval that fails (e.g. no worker took it within the client's 15 s) is a measurement too:
    // counted, its time kept, its run left to be terminated with the rest.
    const failures: Array<{ workflowId: string; step: 'read' | 'approve'; ms: number; error: string }> = [];
    await inPool(chosen, APPROVALS_IN_FLIGHT, async (workflowId) => {
      // What a person does: opens the run (its status: the call that waits), then approves it.
      let step: 'read' | 'approve' = 'read';
      let t = performance.now();
      try {
        const progress = await client.runs.progress(workflowId);
        reads.push(performance.now() - t);
        const call = progress.pendingApprovals.find((waitingCall) => waitingCall.tool === 'update_user');
        if (!call) throw new Error(`${workflowId} waits for no update_user call (status ${progress.status})`);
        step = 'approve';
        t = performance.now();
        // Timed whether it succeeds or not: a refused or lost decision took that long too.
        const outcome = await client.runs
          .approve(workflowId, call.callId, { by: APPROVER })
          .finally(() => approvals.push(performance.now() - t));
        if (outcome.decided !== 'approved') throw new Error(`the approval left it ${outcome.decided}`);
      } catch (err) {
        const error = err instanceof Error ? err.message : String(err);
        failures.push({ workflowId, step, ms: performance.now() - t, error });
        return;
      }
      outcomes.push(
        client.runs.result(workflowId).then(
          (result) => {
            ended.add(workflowId);
            return { at: performance.now() - a0, status: result.status, answer: result.answer };
          },
          (err: unknown) => ({ at: performance.now() - a0, status: `error: ${String(err)}`, answer: '' }),
        ),
      );
    });
    const approvalsDone = performance.now() - a0;
    const results = await Promise.all(outcomes);
    const approvedDone = Math.max(...results.map((result) => result.at));
    const completed = results.filter((result) => result.status === 'completed' && /EPAM/.test(result.answer)).length;
    const atEnd = procMemory(worker.pid);

    // The rest are terminated (as are, in `finally`, all of them when something failed).
    const d0 = performance.now();
    await terminate(
      temporal,
      ids.filter((id) => !ended.has(id)),
      ended,
    );
    const terminated = performance.now() - d0;

    const cache = worker.options.maxCachedWorkflows ?? DEFAULT_WORKER_TUNING.maxCachedWorkflows!;
    const cachedRuns = Math.min(sizes.runs, cache);
    const peak =
      (peakReset ? whenWaiting.hwm : undefined) ?? Math.max(...samples.map((s) => s.rss ?? 0), whenWaiting.rss ?? 0);
    const perCachedRun =
      whenWaiting.rss !== undefined && atReady.rss !== undefined ? (whenWaiting.rss - atReady.rss) / cachedRuns : NaN;
    const data = {
      runs: sizes.runs,
      preparedMs: prepared,
      approve,
      worker: cli ? 'node bin/waveloop.js worker' : 'bench/demo-worker-process.ts (createCliWorker)',
      workerOptions: worker.options,
      cache,
      startedAllMs: startedAll,
      allWaitingMs: allWaiting,
      waited: waiting,
      workerMemory: { atReady, whenWaiting, atEnd, peak, peakReset, perCachedRun, heapAtReady, heapWhenWaiting },
      serverMemory: { atStart: serverAtStart, whenWaiting: serverWhenWaiting },
      readMs: reads,
      approvalMs: approvals,
      failures,
      approvalsDoneMs: approvalsDone,
      approvedDoneMs: approvedDone,
      completed,
      statuses: count(results.map((result) => result.status)),
      terminatedMs: terminated,
      samples: thin(samples, 100),
    };
    return {
      id: 15,
      title: 'Waiting runs: many runs waiting for an approval on one worker',
      sizes: `${sizes.runs.toLocaleString('en')} runs of the demo's goal on one worker process, each waiting for the approval of update_user; ${approve.toLocaleString('en')} approved, ${APPROVALS_IN_FLIGHT} at a time`,
      table: {
        head: [
          'runs',
          'workflow cache',
          'start all',
          'until all wait',
          'worker RSS: ready / peak / all waiting',
          'server RSS, all waiting',
          'approval p50 / p95',
          'approved runs completed',
        ],
        rows: [
          [
            sizes.runs,
            cache,
            seconds(startedAll ?? NaN),
            seconds(allWaiting),
            `${mib(atReady.rss)} / ${mib(peak)} / ${mib(whenWaiting.rss)}`,
            mib(serverWhenWaiting.rss),
            `${ms(median(approvals), 0)} / ${ms(p95(approvals), 0)}${failures.length ? ` (${failures.length} failed)` : ''}`,
            seconds(approvedDone),
          ],
        ],
      },
      targets: [
        {
          target: '10,000 waiting runs with the worker under 1.5 GiB RSS',
          value: `${mib(peak)} at its peak with ${sizes.runs.toLocaleString('en')} runs`,
          met: sizes.runs >= 10_000 ? peak < 1.5 * GiB : 'no threshold',
        },
        { target: 'approvals at p95 under 1 s', value: ms(p95(approvals), 0), met: p95(approvals) < 1_000 },
      ],
      notes: [
        `The worker is \`waveloop worker\`'s own (${data.worker}), with no project: the demo's tools and agents, its database and SQLite audit trail in a temporary data directory, the scripted demo model (started by the runner) as its endpoint; one process, its pid's /proc/<pid>/status read for VmRSS and VmHWM. Its workflow cache: ${cache} runs (${sizes.cache !== undefined ? 'maxCachedWorkflows given by the scenario' : cache === DEFAULT_WORKER_TUNING.maxCachedWorkflows ? "waveloop's default (DEFAULT_WORKER_TUNING)" : "the SDK's default, from the heap limit"}; reuseV8Context ${String(worker.options.reuseV8Context ?? 'default')}, workflowThreadPoolSize ${String(worker.options.workflowThreadPoolSize ?? 'default')}). A waiting run holds no slot and no activity: it costs the worker its place in the cache; past the cache, the least recently used runs are evicted, and rebuilt from their history when a query or a decision reaches them.`,
        `Each run: three model calls and two tool calls (search_users, get_user) before update_user waits for approval. Start all: ${STARTS_IN_FLIGHT} starts in flight (\`runs.start\`); until all wait: from the first start until the visibility store counts every run of the task queue with WaveloopStatus = waiting_for_approval (a count query every ${POLL_MS / 1000} s).`,
        `Worker RSS: at ready (a second start: the first built the workflow bundle, or found it cached, and stopped), the peak while the runs started and waited (VmHWM${peakReset ? ', reset after ready through /proc/<pid>/clear_refs' : '; clear_refs refused, so the highest VmRSS sampled every 0.5 s'}), and once all wait: ${mib(whenWaiting.rss)}, ${sizes.runs <= cache ? `${Number.isFinite(perCachedRun) ? `${(perCachedRun / 1024).toFixed(0)} KiB` : '–'} more than at ready per run, every one of them in the cache` : `with more runs than the cache holds (${cache}), not a cost per cached run: the replays of evicted runs grow the workflow thread's heap too`}. Its main thread's V8 heap then: ${mib(heapWhenWaiting?.heapUsed)} used of ${mib(heapWhenWaiting?.heapTotal)} (${mib(heapAtReady?.heapUsed)} at ready); the cached runs live in the workflow thread's heap, counted in RSS only. At the end (approved runs completed): ${mib(atEnd.rss)}.`,
        `Server: the Temporal dev server's VmRSS (pid ${serverPid ?? 'unknown'}): ${mib(serverAtStart.rss)} before the scenario (after the scenarios before it), ${mib(serverWhenWaiting.rss)} once all wait.`,
        `Approvals: ${approve} runs picked evenly over the start order${sizes.runs > cache ? ' (so evicted ones too: more runs wait than the cache holds)' : ''}, ${APPROVALS_IN_FLIGHT} in flight. Each is read first, as a person opens it (the \`status\` query for its call id: p50 ${ms(median(reads), 0)}, p95 ${ms(p95(reads), 0)}, not in the approval's time), then approved with \`runs.approve\` (the run described, a live worker checked, the update until the worker accepted it), timed. All ${approve} were approved ${seconds(approvalsDone)} after the first began; approved runs completed: from the first approval until the last approved run's result (update_user and one more model call each): ${seconds(approvedDone)}, ${completed} of ${approve} completed with Bob at EPAM.${failures.length ? ` ${failures.length} failed (${failures.filter((f) => f.step === 'read').length} at the read; their runs terminated with the rest); the first: ${failures[0].error}` : ''} The rest were then terminated (${seconds(terminated)}).`,
      ],
      data,
    };
  } finally {
    if (worker) await worker.stop();
    // A run left behind would weigh on the scenarios after this one.
    await terminate(temporal, ids, ended).catch(() => undefined);
    await model.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The worker process: its pid and options, its memory on request, and how to stop it. */
interface DemoWorker {
  pid: number;
  options: {
    maxCachedWorkflows?: number;
    reuseV8Context?: boolean;
    workflowThreadPoolSize?: number;
    maxConcurrentWorkflowTaskExecutions?: number;
  };
  alive(): boolean;
  /** `process.memoryUsage()` of its main thread (undefined for `waveloop worker` itself, or when it does not answer). */
  memory(): Promise<NodeJS.MemoryUsage | undefined>;
  stderrTail(): string;
  stop(): Promise<void>;
}

/**
 * Starts the worker in a process of its own, in `cwd` (no project config there or above) with the
 * environment's waveloop, Temporal, OpenAI and OpenTelemetry variables replaced by `settings`;
 * resolves once it polls. `cache`: its maxCachedWorkflows. `BENCH_WAITING_WORKER=cli`:
 * `node bin/waveloop.js worker`.
 */
async function startDemoWorker(
  settings: Record<string, string>,
  cwd: string,
  cache: number | undefined,
): Promise<DemoWorker> {
  const cli = process.env.BENCH_WAITING_WORKER === 'cli';
  const inherited = Object.entries(process.env).filter(([name]) => !/^(WAVELOOP_|TEMPORAL_|OPENAI_|OTEL_)/.test(name));
  const args = cli
    ? [path.join(ROOT, 'bin', 'waveloop.js'), 'worker']
    : [path.join(__dirname, '..', 'demo-worker-process.js'), ...(cache === undefined ? [] : [String(cache)])];
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd,
    env: { ...Object.fromEntries(inherited), ...settings },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  let exited = false;
  const memoryWaiters: Array<(usage: NodeJS.MemoryUsage) => void> = [];
  let onReady: (options: DemoWorker['options']) => void = () => undefined;
  const ready = new Promise<DemoWorker['options']>((resolve, reject) => {
    onReady = resolve;
    child.once('exit', (code) => {
      exited = true;
      reject(new Error(`the worker process exited with ${code} before it was ready: ${stderr.slice(-2000)}`));
    });
  });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    for (let nl = out.indexOf('\n'); nl >= 0; nl = out.indexOf('\n')) {
      const line = out.slice(0, nl);
      out = out.slice(nl + 1);
      if (line.startsWith('ready ')) onReady(JSON.parse(line.slice(6)) as DemoWorker['options']);
      if (line.startsWith('memory ')) memoryWaiters.shift()?.(JSON.parse(line.slice(7)) as NodeJS.MemoryUsage);
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-8_000);
    // `waveloop worker` says on stderr that it polls.
    if (cli && stderr.includes('Worker polling task queue')) onReady({});
  });
  const options = await ready;
  return {
    pid: child.pid!,
    options,
    alive: () => !exited && child.exitCode === null,
    memory: async () => {
      if (cli || exited) return undefined;
      const answer = new Promise<NodeJS.MemoryUsage>((resolve) => memoryWaiters.push(resolve));
      child.stdin!.write('memory\n');
      return Promise.race([answer, sleep(10_000).then(() => undefined)]);
    },
    stderrTail: () => stderr.slice(-2000),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      if ((await Promise.race([gone.then(() => true), sleep(20_000).then(() => false)])) === false) {
        child.kill('SIGKILL');
        await gone;
      }
    },
  };
}

/** A process's resident memory now (VmRSS) and at its peak (VmHWM), in bytes, from /proc; empty when unknown. */
function procMemory(pid: number | undefined): { rss?: number; hwm?: number } {
  if (pid === undefined) return {};
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (field: string) => {
      const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
      return match ? Number(match[1]) * 1024 : undefined;
    };
    return { rss: kib('VmRSS'), hwm: kib('VmHWM') };
  } catch {
    return {};
  }
}

/** Resets a process's VmHWM to its RSS now (Linux: `5` to /proc/<pid>/clear_refs); false when refused. */
function resetPeak(pid: number): boolean {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Calls `fn` on every item, at most `width` at a time; rejects with the first failure (after the calls in flight). */
async function inPool<T>(items: readonly T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: unknown;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length && failure === undefined) {
        const item = items[next++];
        await fn(item).catch((err: unknown) => (failure ??= err));
      }
    }),
  );
  if (failure !== undefined) throw failure;
}

/** Terminates the runs of `ids` not in `ended` (a run that already ended is skipped), and adds them to it. */
async function terminate(temporal: Client, ids: readonly string[], ended: Set<string>): Promise<void> {
  await inPool(
    ids.filter((id) => !ended.has(id)),
    TERMINATIONS_IN_FLIGHT,
    async (id) => {
      await temporal.workflow
        .getHandle(id)
        .terminate('bench done')
        .catch(() => undefined);
      ended.add(id);
    },
  );
}

/** The first run `query` finds, with its status and, if it failed, why. */
async function firstClosed(temporal: Client, query: string): Promise<string> {
  for await (const run of temporal.workflow.list({ query, pageSize: 1 })) {
    const result = await temporal.workflow
      .getHandle(run.workflowId)
      .result()
      .then((value) => JSON.stringify(value).slice(0, 500), String);
    return `${run.workflowId} ${run.status.name}: ${result}`;
  }
  return 'none found';
}

function count(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

/** At most about `most` samples, evenly spaced, the last kept. */
function thin<T>(values: T[], most: number): T[] {
  const every = Math.max(1, Math.ceil(values.length / most));
  return values.filter((_, i) => i % every === 0 || i === values.length - 1);
}

function mib(bytes: number | undefined): string {
  return bytes === undefined || !Number.isFinite(bytes) ? '–' : `${(bytes / MiB).toFixed(0)} MiB`;
}

function seconds(value: number): string {
  return Number.isFinite(value) ? `${(value / 1000).toFixed(1)} s` : '–';
}
