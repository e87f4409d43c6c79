import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentLoopResult } from '../../src/contract/agent-loop';
import { approveUpdate } from '../../src/contract/messages';
import { WAVELOOP_SEARCH_ATTRIBUTES } from '../../src/contract/search-attributes';
import { openDemoDatabase, type DemoDatabase } from '../../src/demo';
import { chaosCalls, countUserUpdates, retryWhileRestarting, userUpdates } from '../chaos/chaos-runs';
import { WorkerPool } from '../chaos/cluster';
import { chaosReply, chaosUserId, expectedAnswer } from '../chaos/script';
import { waveloop } from '../support/cli';
import { FakeModel, toolMessages, type ChatRequest } from '../support/fake-model';
import { Harness, waitForProgress, workflowBundle } from '../support/harness';
import { localWaves } from '../support/history';
import { eventually } from '../support/wait';
import { readStack, ServerProcess } from './stack';

/**
 * The demo's scenarios and a small crash matrix on the stack docker-compose.yml describes, run from
 * packages by test/cluster/run.ts (`npm run test:cluster`): Temporal's server at the compose file's
 * version on PostgreSQL, with waveloop's search attributes registered by `waveloop setup`.
 */

const stack = readStack();
const server = new ServerProcess(stack);
const h = new Harness({ address: stack.address });
const cli = (args: string[]) =>
  waveloop(args, { TEMPORAL_ADDRESS: stack.address, TEMPORAL_NAMESPACE: 'default' }, { cwd: h.dataDir });

beforeAll(() => h.start());
afterAll(() => h.stop());

/** The JSON the model received as the result of the latest tool call. */
function lastToolResult(request: ChatRequest): any {
  const results = toolMessages(request);
  return JSON.parse(results[results.length - 1]);
}

function nextDay(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

describe('cluster: the server', () => {
  it("the server: the compose file's version on PostgreSQL (persistence and visibility), more than one history shard, deploy/'s dynamic config, waveloop's search attributes registered", async () => {
    const info = await h.client.workflowService.getClusterInfo({});
    expect(info.serverVersion).toBe(stack.version);
    expect(info.persistenceStore).toBe('postgres12');
    expect(info.visibilityStore).toBe('postgres12');
    expect(info.historyShardCount).toBeGreaterThan(1);
    // The dynamic config file of deploy/, as the compose file mounts it.
    const log = fs.readFileSync(stack.server.log, 'utf8');
    for (const key of ['history.transferprocessormaxpollrps', 'history.visibilityprocessormaxpollrps']) {
      expect(log).toContain(
        `dynamic config changed for the key: ${key} oldValue: nil newValue: { constraints: {} value: 1000 }`,
      );
    }
    const { customAttributes } = await h.client.connection.operatorService.listSearchAttributes({
      namespace: 'default',
    });
    expect(Object.keys(customAttributes ?? {})).toEqual(
      expect.arrayContaining(WAVELOOP_SEARCH_ATTRIBUTES.map((key) => key.name)),
    );
    // `waveloop setup` ran before the test: a second time it finds them all.
    expect((await cli(['setup'])).stdout).toContain('The search attributes are registered already.');
  });
});

describe('cluster: the demo scenarios', () => {
  it('find Bob: waits for approval, `waveloop list --status waiting_for_approval` finds it, then updates his company', async () => {
    h.fake.script(
      { toolCalls: [{ name: 'search_users', args: { name: 'Bob' } }] },
      (req) => ({ toolCalls: [{ name: 'get_user', args: { id: lastToolResult(req)[0].id } }] }),
      (req) => ({ toolCalls: [{ name: 'update_user', args: { id: lastToolResult(req).id, company: 'EPAM' } }] }),
      (req) => ({ content: `Updated ${lastToolResult(req).name}: company is now ${lastToolResult(req).company}.` }),
    );
    const bob = h.db.prepare("SELECT * FROM users WHERE name LIKE 'Bob%'").get() as {
      id: number;
      name: string;
      company: string;
    };
    expect(bob.company).not.toBe('EPAM');
    const listed = async (status: string) =>
      JSON.parse((await cli(['list', '--status', status, '--json', '--limit', '100'])).stdout) as {
        workflowId: string;
      }[];

    const { handle, result } = await h.run(
      { goal: 'Find Bob and update his company to EPAM', agent: 'back-office' },
      {
        during: async (handle) => {
          const waiting = await waitForProgress(h.client, handle, (p) => p.pendingApprovals.length > 0);
          expect(waiting.pendingApprovals[0]).toMatchObject({
            tool: 'update_user',
            args: { company: 'EPAM' },
            iteration: 3,
          });
          // The run's WaveloopStatus, in PostgreSQL's visibility store (it catches up shortly after the change).
          await eventually(
            () => listed('waiting_for_approval'),
            (runs) => runs.some((r) => r.workflowId === handle.workflowId),
            {
              attempts: 30,
              intervalMs: 500,
              problem: '`waveloop list --status waiting_for_approval` never listed the run.',
            },
          );
          await handle.executeUpdate(approveUpdate, { args: [waiting.pendingApprovals[0].callId] });
        },
      },
    );

    h.fake.assertDone();
    expect(result).toMatchObject({
      status: 'completed',
      iterations: 4,
      answer: `Updated ${bob.name}: company is now EPAM.`,
    });
    expect(result!.waves.map((w) => w.calls.map((c) => c.tool))).toEqual([
      ['search_users'],
      ['get_user'],
      ['update_user'],
    ]);
    expect((h.db.prepare('SELECT company FROM users WHERE id = ?').get(bob.id) as { company: string }).company).toBe(
      'EPAM',
    );
    await eventually(
      () => listed('completed'),
      (runs) => runs.some((r) => r.workflowId === handle.workflowId),
      {
        attempts: 30,
        intervalMs: 500,
        problem: '`waveloop list --status completed` never listed the run.',
      },
    );
  });

  it('Hanukkah and next weekend: two waves of two parallel calls', async () => {
    h.fake.script(
      {
        toolCalls: [
          { name: 'resolve_holiday', args: { name: 'Hanukkah' } },
          { name: 'resolve_date_hint', args: { hint: 'next weekend' } },
        ],
      },
      (req) => {
        const [holiday, weekend] = toolMessages(req).map((m) => JSON.parse(m));
        return {
          toolCalls: [
            { name: 'get_availability', args: { check_in: holiday.start, check_out: nextDay(holiday.start) } },
            { name: 'get_availability', args: { check_in: weekend.start, check_out: weekend.end } },
          ],
        };
      },
      { content: 'Rooms are available for both.' },
    );

    const { handle, result } = await h.run({
      goal: 'I need availability for Hanukkah and also next weekend',
      agent: 'back-office',
    });

    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', iterations: 3, answer: 'Rooms are available for both.' });
    expect(result!.waves.map((w) => w.calls.map((c) => c.tool))).toEqual([
      ['resolve_holiday', 'resolve_date_hint'],
      ['get_availability', 'get_availability'],
    ]);
    expect(JSON.parse(result!.waves[0].calls[0].result!).start).toBe('2026-12-04');
    // Read tools: each wave's two calls ran as local activities within the one workflow task that
    // received the model's reply.
    const waves = localWaves(await handle.fetchHistory());
    expect(waves.map(({ tools, workflowTasks }) => ({ tools: tools.sort(), workflowTasks }))).toEqual([
      { tools: ['resolve_date_hint', 'resolve_holiday'], workflowTasks: 1 },
      { tools: ['get_availability', 'get_availability'], workflowTasks: 1 },
    ]);
  });
});

/**
 * The crash matrix, small: RUNS chaos runs (test/chaos/script.ts: a wave of three calls, an
 * update_user that waits for approval, one more call, the answer) on WORKERS worker processes,
 * KILLS of which are SIGKILLed at random points; the Temporal server is killed (SIGKILL) after
 * RESTART_AFTER_KILLS[0] kills and stopped (SIGTERM) after RESTART_AFTER_KILLS[1], each time with
 * runs open, and started again on the same databases.
 */
const RUNS = 8;
const WORKERS = 2;
const KILLS = 8;
const RESTART_AFTER_KILLS = [3, 6];
const KILL_EVERY_MS: [number, number] = [1_000, 3_000];

interface ChaosRun {
  n: number;
  workflowId: string;
  started: boolean;
  approved: boolean;
  done: boolean;
  execution?: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const between = ([min, max]: [number, number]) => min + Math.random() * (max - min);

describe('cluster: the crash matrix', () => {
  const fake = new FakeModel();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'waveloop-cluster-chaos-'));
  const taskQueue = `cluster-chaos-${process.pid}`;
  let pool: WorkerPool;
  let db: DemoDatabase;
  let client: Client;
  let calls: ReturnType<typeof chaosCalls>;

  beforeAll(async () => {
    await fake.start();
    // Four turns of every run, each at most as many times as a model call is attempted (8).
    fake.route(chaosReply, { atMost: RUNS * 4 * 8 });
    db = openDemoDatabase(path.join(dataDir, 'demo.db'));
    // Counts every UPDATE of a user row, independently of the tool's own bookkeeping.
    countUserUpdates(db);
    const bundlePath = path.join(dataDir, 'workflow-bundle.js');
    fs.writeFileSync(bundlePath, (await workflowBundle()).code);
    client = new Client({ connection: await Connection.connect({ address: stack.address }) });
    calls = chaosCalls(client, taskQueue);
    pool = new WorkerPool(WORKERS, {
      TEMPORAL_ADDRESS: stack.address,
      CHAOS_TASK_QUEUE: taskQueue,
      OPENAI_BASE_URL: fake.baseURL,
      CHAOS_DATA_DIR: dataDir,
      CHAOS_BUNDLE: bundlePath,
    });
    pool.start();
  });

  afterAll(async () => {
    await pool?.stop();
    await client?.connection.close();
    await fake.stop();
    db?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('worker processes SIGKILLed, the server killed and stopped mid-run and started again: every run completes with its answer, every update takes effect once', async () => {
    const runs: ChaosRun[] = Array.from({ length: RUNS }, (_, n) => ({
      n,
      workflowId: `cluster-chaos-${n}-${process.pid}`,
      started: false,
      approved: false,
      done: false,
    }));
    const openAtRestart: number[] = [];
    const began = Date.now();

    // Run k starts once k+1 of every RUNS/KILLS kills are done, so kills and restarts land among open runs.
    const starter = (async () => {
      for (const [k, run] of runs.entries()) {
        while (pool.kills < Math.ceil(((k + 1) * KILLS) / RUNS)) await sleep(100);
        await retryWhileRestarting(() => startRun(run), 120);
      }
    })();

    const chaos = (async () => {
      const restartAt = [...RESTART_AFTER_KILLS];
      while (pool.kills < KILLS || restartAt.length > 0) {
        await sleep(between(KILL_EVERY_MS));
        if (pool.kills < KILLS) pool.killOne();
        const open = runs.filter((r) => r.started && !r.done).length;
        if (restartAt.length > 0 && pool.kills >= restartAt[0] && open > 0) {
          restartAt.shift();
          openAtRestart.push(open);
          const hard = server.restarts === 0;
          const stoppedAt = Date.now();
          await server.restart(hard);
          console.log(
            `cluster chaos: server ${hard ? 'killed (SIGKILL)' : 'stopped (SIGTERM)'} with ${open} runs open, serving again after ${((Date.now() - stoppedAt) / 1000).toFixed(1)} s`,
          );
        }
        if (runs.every((r) => r.done)) break;
      }
    })();

    const watcher = (async () => {
      while (runs.some((r) => !r.done)) {
        await sleep(1_000);
        await Promise.all(
          runs
            .filter((r) => r.started && !r.done)
            .map(async (run) => {
              if (!run.approved) await calls.approve(run);
              const description = await calls
                .within(3_000, () => client.workflow.getHandle(run.workflowId).describe())
                .catch(() => undefined);
              if (description && description.status.name !== 'RUNNING') {
                run.done = true;
                run.execution = description.status.name;
              }
            }),
        );
      }
    })();

    await Promise.all([starter, chaos, watcher]);
    await pool.stop();

    const problems: string[] = [];
    for (const run of runs) {
      const user = db.prepare('SELECT name FROM users WHERE id = ?').get(chaosUserId(run.n)) as { name: string };
      const result =
        run.execution === 'COMPLETED'
          ? ((await client.workflow.getHandle(run.workflowId).result()) as AgentLoopResult)
          : undefined;
      if (result?.status !== 'completed' || result.answer !== expectedAnswer(run.n, user.name))
        problems.push(`run ${run.n}: ${run.execution} ${JSON.stringify(result?.answer)}`);
      const updates = userUpdates(db, run.n);
      if (updates !== 1) problems.push(`run ${run.n}: update_user took effect ${updates} times`);
    }
    console.log(
      `cluster chaos: ${RUNS} runs, ${pool.kills} worker kills, ${server.restarts} server restarts (runs open: ${openAtRestart.join(', ')}), ` +
        `${pool.spawned} workers started (${pool.unexpectedExits} exited unasked), all done in ${((Date.now() - began) / 1000).toFixed(1)} s`,
    );
    if (pool.lastErrors.length > 0) console.log(`last worker errors:\n${pool.lastErrors.join('\n---\n')}`);

    expect(problems).toEqual([]);
    // The runs live on more than one of the history shards (Temporal's executions table).
    const ids = runs.map((run) => `'${run.workflowId}'`).join(', ');
    expect(
      Number(psql(`SELECT count(DISTINCT shard_id) FROM executions WHERE workflow_id IN (${ids})`)),
    ).toBeGreaterThan(1);
    expect(pool.kills).toBeGreaterThanOrEqual(KILLS);
    expect(server.restarts).toBe(RESTART_AFTER_KILLS.length);
    expect(openAtRestart.every((open) => open > 0)).toBe(true);
  });

  async function startRun(run: ChaosRun): Promise<void> {
    await calls.start(run);
    run.started = true;
  }
});

/** What a query on Temporal's database (`temporal`) returns, as text. */
function psql(query: string): string {
  const { psql, port, user, password } = stack.postgres;
  return execFileSync(psql, ['-h', '127.0.0.1', '-p', String(port), '-U', user, '-d', 'temporal', '-tAc', query], {
    encoding: 'utf8',
    env: { ...process.env, PGPASSWORD: password },
  }).trim();
}
