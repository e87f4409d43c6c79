import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { History } from '@temporalio/common/lib/proto-utils';
import { tsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_LOOP_WORKFLOW, type AgentLoopResult } from '../../src/contract/agent-loop';
import { openDemoDatabase } from '../../src/demo';
import { FakeModel } from '../support/fake-model';
import { workflowBundle } from '../support/harness';
import { activities } from '../support/history';
import { eventually } from '../support/wait';
import { ChaosServer, freePorts, readToolLog, WorkerPool } from './cluster';
import { manyWorkersAnswer, manyWorkersGoal, manyWorkersReply } from './script';

/**
 * Many workers: WORKERS worker processes poll one task queue and share RUNS runs started at once,
 * each three waves of chaos_step calls. Once every worker has finished tool calls, the worker with
 * the most tool calls in flight is SIGKILLed, and no other takes its place. Every run must still end
 * with its scripted answer; every tool call must have run once per attempt Temporal started (so a
 * call that completed never ran again); each worker must have run workflow tasks and tool calls; and
 * the runs the killed worker had must have finished on the other two.
 *
 * Who did what comes from two sources that must agree: the tool log the workers write (pid and tool
 * call of every execution) and the runs' histories, whose WorkflowTaskCompleted and
 * ActivityTaskStarted events name the worker (`<pid>@<host>`, the SDK's default identity).
 */
const RUNS = 30;
const WORKERS = 3;
const TOOL_CALLS_PER_RUN = 6;

const fake = new FakeModel();
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'waveloop-many-workers-'));
const taskQueue = `many-workers-${process.pid}`;
let server: ChaosServer;
let pool: WorkerPool;
let client: Client;

beforeAll(async () => {
  const [port, uiPort] = await freePorts(2);
  server = new ChaosServer(dataDir, `127.0.0.1:${port}`, uiPort);
  await server.start();
  await fake.start();
  // Four turns of every run (three waves, the answer), each at most as many times as a model call is attempted (8).
  fake.route(manyWorkersReply, { atMost: RUNS * 4 * 8 });
  openDemoDatabase(path.join(dataDir, 'demo.db')).close(); // created once here, not by three workers at once
  const bundlePath = path.join(dataDir, 'workflow-bundle.js');
  fs.writeFileSync(bundlePath, (await workflowBundle()).code);
  client = new Client({ connection: await Connection.connect({ address: server.address }) });
  pool = new WorkerPool(
    WORKERS,
    {
      TEMPORAL_ADDRESS: server.address,
      CHAOS_TASK_QUEUE: taskQueue,
      OPENAI_BASE_URL: fake.baseURL,
      CHAOS_DATA_DIR: dataDir,
      CHAOS_BUNDLE: bundlePath,
      // Temporal retries an idempotent tool's attempts in one activity, which this test counts.
      CHAOS_STEP_EFFECT: 'idempotent',
    },
    { replaceKilled: false },
  );
  pool.start();
  await eventually(
    () => pool.readyPids(),
    (pids) => pids.length === WORKERS,
    { attempts: 1_200, problem: 'The workers never all polled.' },
  );
}, 120_000);

afterAll(async () => {
  await pool?.stop();
  await client?.connection.close();
  await server?.stop();
  await fake.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** A worker's part in a run, as the history records it. */
interface Step {
  pid: number;
  kind: 'workflow task' | 'activity';
  eventId: number;
  atMs: number;
}

describe('many workers', () => {
  it('many workers: three workers share 30 runs, and when one is killed mid-run the other two finish its runs', async () => {
    const workers = pool.readyPids();
    const handles = await Promise.all(
      Array.from({ length: RUNS }, (_, n) =>
        client.workflow.start(AGENT_LOOP_WORKFLOW, {
          taskQueue,
          workflowId: `many-workers-${n}-${process.pid}`,
          args: [{ goal: manyWorkersGoal(n), tools: ['chaos_step'], maxIterations: 6 }],
        }),
      ),
    );
    const outcomes = new Map<string, AgentLoopResult | Error>();
    for (const handle of handles) {
      void handle.result().then(
        (result: AgentLoopResult) => outcomes.set(handle.workflowId, result),
        (err: Error) => outcomes.set(handle.workflowId, err),
      );
    }

    // Work is spread once every worker has finished a tool call; then the worker with the most tool
    // calls in flight dies, and no other takes its place.
    await eventually(
      () => readToolLog(dataDir),
      (log) => workers.every((pid) => log.some((line) => line.pid === pid && line.event === 'end')),
      { attempts: 1_200, problem: 'Not every worker finished a tool call.' },
    );
    const victim = (await eventually(
      () => busiestWorker(workers),
      (busiest) => busiest !== undefined,
      { intervalMs: 20, attempts: 3_000, problem: 'No worker had a tool call in flight.' },
    ))!;
    expect(pool.kill(victim)).toBe(true);
    const killedAt = Date.now();
    await eventually(
      () => [...pool.workers].some((w) => w.pid === victim),
      (alive) => !alive,
      { problem: `The killed worker (pid ${victim}) did not exit.` },
    );
    const survivors = workers.filter((pid) => pid !== victim);
    const cutCalls = openCalls(victim); // its tool calls that the kill cut off

    await eventually(
      () => handles.filter((h) => !outcomes.has(h.workflowId)).map((h) => h.workflowId),
      (unfinished) => unfinished.length === 0,
      { attempts: 2_400, problem: 'Some runs never finished after the kill.' },
    );
    const allDoneAt = Date.now();

    // Check every run against its history and the tool log.
    const log = readToolLog(dataDir);
    const problems: string[] = [];
    const workflowTasks = new Map<number, number>();
    const activityStarts = new Map<number, number>();
    /** Workflow tasks that timed out, by timeout: those the killed worker had started or held in its cache. */
    const workflowTaskTimeouts = new Map<string, number>();
    let lostAttempts = 0;
    let runsOnTheVictim = 0;
    let runsHeldByTheVictim = 0;
    let runsTakenOver = 0;
    for (const [n, handle] of handles.entries()) {
      const id = handle.workflowId;
      // 1. The run completed with its scripted answer.
      const outcome = outcomes.get(id);
      if (outcome instanceof Error || outcome?.status !== 'completed' || outcome.answer !== manyWorkersAnswer(n)) {
        problems.push(
          `${id}: ${outcome instanceof Error ? outcome.message : `${outcome?.status} ${JSON.stringify(outcome?.answer)}`}`,
        );
      }
      // 3. Who ran its workflow tasks and activities (counted per worker below).
      const history = await handle.fetchHistory();
      const steps = workerSteps(history);
      for (const event of history.events ?? []) {
        const timedOut = event.workflowTaskTimedOutEventAttributes;
        const type =
          timedOut && temporal.api.enums.v1.TimeoutType[timedOut.timeoutType ?? 0]?.replace('TIMEOUT_TYPE_', '');
        if (type) workflowTaskTimeouts.set(type, (workflowTaskTimeouts.get(type) ?? 0) + 1);
      }
      for (const step of steps) {
        const counts = step.kind === 'workflow task' ? workflowTasks : activityStarts;
        counts.set(step.pid, (counts.get(step.pid) ?? 0) + 1);
        if (!workers.includes(step.pid))
          problems.push(`${id}: event ${step.eventId} names pid ${step.pid}, none of the workers`);
      }

      // 2. Each tool call ran once per attempt Temporal started: a call that completed never ran
      // again. The one exception: an attempt handed to the killed worker just before the kill, which
      // died before its tool began, and was tried again elsewhere.
      const tools = activities(history).filter((a) => a.type === 'runTool');
      const callIds = tools.map((a) => (a.input as { toolCallId: string }).toolCallId);
      if (tools.length !== TOOL_CALLS_PER_RUN || new Set(callIds).size !== TOOL_CALLS_PER_RUN) {
        problems.push(`${id}: ${tools.length} tool activities for ${new Set(callIds).size} calls`);
      }
      for (const [i, tool] of tools.entries()) {
        const key = `${id}/${callIds[i]}`;
        const starts = log.filter((line) => line.key === key && line.event === 'start');
        const completer = pidOf(tool.identity);
        if (tool.completedEventId === undefined) {
          problems.push(`${key}: did not complete`);
          continue;
        }
        const finished = log
          .map((line) => line.key === key && line.event === 'end' && line.pid === completer)
          .lastIndexOf(true);
        if (finished < 0) problems.push(`${key}: completed by pid ${completer}, whose tool never finished it`);
        else if (log.slice(finished + 1).some((line) => line.key === key && line.event === 'start')) {
          problems.push(`${key}: ran again after the execution that completed it`);
        }
        const lostToTheKill =
          starts.length === tool.attempts - 1 && completer !== victim && !starts.some((s) => s.pid === victim);
        if (lostToTheKill) lostAttempts += 1;
        else if (starts.length !== tool.attempts)
          problems.push(`${key}: ran ${starts.length} times in ${tool.attempts} attempts`);
        if (cutCalls.includes(key) && (tool.attempts < 2 || completer === victim)) {
          problems.push(`${key}: cut off by the kill, yet ${tool.attempts} attempt(s), completed by pid ${completer}`);
        }
      }

      // 4. The runs the killed worker had went on, and finished, on the other two.
      const byVictim = steps.filter((s) => s.pid === victim);
      if (byVictim.length === 0) continue;
      runsOnTheVictim += 1;
      const closedAt = closeTime(history);
      const lastByVictim = Math.max(...byVictim.map((s) => s.eventId));
      const laterBySurvivors = steps.filter((s) => s.eventId > lastByVictim && survivors.includes(s.pid));
      const taskBeforeKill = steps.filter((s) => s.kind === 'workflow task' && s.atMs < killedAt).at(-1);
      if (closedAt > killedAt && laterBySurvivors.some((s) => s.kind === 'workflow task')) runsTakenOver += 1;
      // Held: its last workflow task before the kill ran on the killed worker, which kept it in its cache.
      if (closedAt > killedAt && taskBeforeKill?.pid === victim) runsHeldByTheVictim += 1;
    }

    const perWorker = (counts: Map<number, number>) =>
      workers.map((pid) => `${pid}${pid === victim ? ' (killed)' : ''}: ${counts.get(pid) ?? 0}`).join(', ');
    const toolRuns = new Map<number, number>();
    for (const line of log) if (line.event === 'start') toolRuns.set(line.pid, (toolRuns.get(line.pid) ?? 0) + 1);
    const report = {
      runs: RUNS,
      workers: WORKERS,
      workerKills: pool.kills,
      workerExitsUnasked: pool.unexpectedExits,
      toolExecutionsPerWorker: perWorker(toolRuns),
      workflowTasksPerWorker: perWorker(workflowTasks),
      activitiesPerWorker: perWorker(activityStarts),
      toolCallsCutByTheKill: cutCalls.length,
      attemptsLostBeforeTheToolBegan: lostAttempts,
      runsOnTheKilledWorker: runsOnTheVictim,
      runsHeldByItAtTheKill: runsHeldByTheVictim,
      runsFinishedByTheOthers: runsTakenOver,
      workflowTaskTimeouts: JSON.stringify(Object.fromEntries(workflowTaskTimeouts)),
      secondsFromKillToAllDone: Math.round((allDoneAt - killedAt) / 100) / 10,
    };
    console.log(
      `many-workers report\n${Object.entries(report)
        .map(([k, v]) => `  ${k.padEnd(32)} ${v}`)
        .join('\n')}`,
    );
    if (pool.lastErrors.length > 0) console.log(`last worker errors:\n${pool.lastErrors.join('\n---\n')}`);

    // 1, 2: every run completed with its answer; no tool call ran more often than it was attempted.
    expect(problems).toEqual([]);
    // Exactly one worker died, the one the test killed, mid-run; the other two are still polling.
    expect(report).toMatchObject({ workerKills: 1, workerExitsUnasked: 0 });
    expect(pool.readyPids().sort()).toEqual([...survivors].sort());
    expect(report.toolCallsCutByTheKill).toBeGreaterThan(0);
    // 3. The work was spread: every worker ran tool calls and workflow tasks.
    for (const pid of workers) {
      expect(toolRuns.get(pid), `tool executions of pid ${pid}`).toBeGreaterThan(0);
      expect(activityStarts.get(pid), `activities of pid ${pid}`).toBeGreaterThan(0);
      expect(workflowTasks.get(pid), `workflow tasks of pid ${pid}`).toBeGreaterThan(0);
    }
    // 4. The killed worker's runs finished on the others, including runs it held in its cache.
    expect(report.runsFinishedByTheOthers).toBeGreaterThan(0);
    expect(report.runsHeldByItAtTheKill).toBeGreaterThan(0);
  }, 240_000);
});

/** The worker (pid) with the most tool calls in flight, if any worker has one. */
function busiestWorker(workers: number[]): number | undefined {
  const ranked = workers.map((pid) => ({ pid, open: openCalls(pid).length })).sort((a, b) => b.open - a.open);
  return ranked[0]?.open > 0 ? ranked[0].pid : undefined;
}

/** The tool calls (keys) that worker `pid` started and has not finished, from the tool log. */
function openCalls(pid: number): string[] {
  const open = new Set<string>();
  for (const line of readToolLog(dataDir)) {
    if (line.pid !== pid) continue;
    if (line.event === 'start') open.add(line.key);
    if (line.event === 'end') open.delete(line.key);
  }
  return [...open];
}

/** Every workflow task completed and activity attempt recorded in a history, with the worker that did it. */
function workerSteps(history: History): Step[] {
  const steps: Step[] = [];
  for (const event of history.events ?? []) {
    const task = event.workflowTaskCompletedEventAttributes;
    const activity = event.activityTaskStartedEventAttributes;
    const identity = task?.identity ?? activity?.identity;
    if (!identity) continue;
    steps.push({
      pid: pidOf(identity),
      kind: task ? 'workflow task' : 'activity',
      eventId: Number(event.eventId),
      atMs: tsToMs(event.eventTime),
    });
  }
  return steps;
}

function closeTime(history: History): number {
  const closed = history.events?.find((e) => e.workflowExecutionCompletedEventAttributes);
  return closed ? tsToMs(closed.eventTime) : Number.POSITIVE_INFINITY;
}

/** The pid in a worker identity (`<pid>@<host>`). */
function pidOf(identity: string | null | undefined): number {
  return Number(identity?.split('@')[0]);
}
