import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WaveloopClient } from '../../src/client/waveloop-client';
import { cliFixture, waveloop, waveloopLive, type CliFixture } from '../support/cli';
import { toolMessages } from '../support/fake-model';
import { eventually, eventuallyMatches, settled } from '../support/wait';

/** Preloaded into a CLI process to run its clock ahead (test/support/clock-ahead.cjs). */
const CLOCK_AHEAD = path.join(__dirname, '..', 'support', 'clock-ahead.cjs');

/**
 * The CLI and the workers that serve its runs: whether a worker counts as live, what `run` and
 * `follow` say when none serves a run, and how they stop on a signal.
 */
describe('waveloop CLI and workers', () => {
  let cli: CliFixture;

  beforeAll(async () => {
    cli = await cliFixture('cli-workers');
  });
  afterAll(() => cli.stop());

  /** When the fixture's worker last polled its task queue, as the server lists it (once it has polled). */
  const lastPoll = async () => {
    const describe = () =>
      cli.h.client.workflowService.describeTaskQueue({
        namespace: 'default',
        taskQueue: { name: cli.taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
        taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
      });
    const { pollers } = await eventually(describe, ({ pollers }) => (pollers ?? []).length > 0);
    return Math.max(
      ...pollers!.map(
        (p) => Number(p.lastAccessTime!.seconds) * 1000 + Math.floor((p.lastAccessTime!.nanos ?? 0) / 1e6),
      ),
    );
  };
  /** The CLI's environment with its clock running ahead until the worker's last poll is `ms` old. */
  const whenLastPollIsOld = async (ms: number) => ({
    ...cli.env,
    NODE_OPTIONS: `--require ${CLOCK_AHEAD}`,
    CLOCK_AHEAD_MS: String(ms - (Date.now() - (await lastPoll()))),
  });

  it('waveloop run: a worker that has waited for work over a minute is live; run uses it and starts none of its own', async () => {
    cli.fake.script({ content: 'Served by the idle worker.' });
    // An idle worker's long poll lasts up to a minute: seen from a minute on, its last poll is 61 s old.
    const out = await waveloop(['run', 'Say hello'], await whenLastPollIsOld(61_000));

    expect(out.stderr).not.toContain('running one in this process');
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain('Served by the idle worker.');
    cli.fake.assertDone();
  });

  it('waveloop run --detach and follow: a run no worker polls for is named with the command that starts one; SIGTERM stops follow (143), not the run', async () => {
    const queue = `${cli.taskQueue}-unserved`;
    const unserved = { ...cli.env, WAVELOOP_TASK_QUEUE: queue };
    const started = await waveloop(['run', '--detach', '--id', 'workers-unserved', 'Say hello'], unserved);
    expect(started.code).toBe(0);
    expect(started.stdout).toMatch(/^Started run workers-unserved/);
    expect(started.stderr).toContain(
      `No worker polls task queue "${queue}", so run workers-unserved starts once one does: start one with \`waveloop worker\``,
    );

    const follow = waveloopLive(['follow', 'workers-unserved'], cli.env);
    // Followed with another task queue configured: the command names the run's.
    await eventually(follow.stderr, (err) =>
      err.includes(
        `No worker polls task queue "${queue}", so nothing carries run workers-unserved on: start one with \`WAVELOOP_TASK_QUEUE=${queue} waveloop worker\``,
      ),
    );
    follow.kill('SIGTERM');
    const out = await settled(follow.done, 'waveloop follow ignored SIGTERM.');
    expect(out.code).toBe(143);
    expect(out.stderr).toContain('Stopped following workers-unserved; the run goes on in Temporal.');

    // It does: a worker takes it up.
    cli.fake.script({ content: 'Hello once served.' });
    await cli.serve(queue);
    expect(await cli.client.runs.result('workers-unserved')).toMatchObject({
      status: 'completed',
      answer: 'Hello once served.',
    });
    cli.fake.assertDone();
  });

  it('waveloop run: SIGTERM stops following (143) and shuts its in-process worker down; another worker carries the run on', async () => {
    const queue = `${cli.taskQueue}-solo`;
    const solo = { ...cli.env, WAVELOOP_TASK_QUEUE: queue };
    cli.fake.script({ content: 'too late', delayMs: 15_000 }, { content: 'Answered by the next worker.' });
    const running = waveloopLive(['run', '--id', 'workers-sigterm', 'Take your time'], solo);
    await eventually(
      () => cli.fake.inFlight,
      (n) => n === 1,
    );
    expect(running.stderr()).toContain('running one in this process');

    running.kill('SIGTERM');
    const out = await settled(running.done, 'waveloop run ignored SIGTERM.');
    expect(out.code, out.stderr).toBe(143);
    expect(out.stderr).toContain('Stopped following workers-sigterm; the run goes on in Temporal.');
    // The worker let go of the model call it had (cancelled, to be retried), and the run is still going.
    expect(await cli.client.runs.handle('workers-sigterm').describe()).toMatchObject({ status: { name: 'RUNNING' } });

    await cli.serve(queue);
    expect(await cli.client.runs.result('workers-sigterm')).toMatchObject({
      status: 'completed',
      answer: 'Answered by the next worker.',
    });
    cli.fake.assertDone();
  });

  it('waveloop run --json: says on stderr what the run waits for, and prints the result with the workflow id', async () => {
    cli.fake.script({ toolCalls: [{ name: 'update_user', args: { id: 3, company: 'Globex' } }] }, (req) => ({
      content: `Done: ${toolMessages(req)[0]}`,
    }));
    const running = waveloopLive(
      ['run', '--json', '--agent', 'back-office', '--id', 'workers-json', 'Move user 3'],
      cli.env,
    );
    const [, callId] = await eventuallyMatches(
      running.stderr,
      /Approval needed: wave 1 · update_user\(id=3, company=Globex\)\n  decide with: waveloop approve workers-json (\S+) /,
    );
    expect(running.stdout()).toBe('');
    expect((await waveloop(['approve', 'workers-json', callId], cli.env)).code).toBe(0);
    const out = await running.done;

    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({
      workflowId: 'workers-json',
      runId: expect.any(String),
      status: 'completed',
      answer: expect.stringContaining('Done: {'),
    });
    cli.fake.assertDone();
  });

  it('waveloop worker --deployment --build-id: polls as that version and serves runs once it is current; one of the two alone is refused (exit 2)', async () => {
    const name = `workers-${randomUUID()}`;
    const alone = await waveloop(['worker', '--deployment', name], cli.env);
    expect([alone.code, alone.stderr]).toEqual([
      2,
      '--deployment and --build-id go together: give both for a versioned worker, or neither.\n',
    ]);
    const envAlone = await waveloop(['worker'], { ...cli.env, WAVELOOP_DEPLOYMENT: name });
    expect([envAlone.code, envAlone.stderr]).toEqual([
      2,
      'Invalid input: WAVELOOP_BUILD_ID: must be set with WAVELOOP_DEPLOYMENT (set both or neither)\n',
    ]);

    const queue = `${cli.taskQueue}-versioned`;
    const env = { ...cli.env, WAVELOOP_TASK_QUEUE: queue };
    const worker = waveloopLive(['worker', '--deployment', name, '--build-id', 'v1'], env);
    await eventually(worker.stderr, (said) =>
      said.includes(`as build v1 of Worker Deployment "${name}" (new runs come once it is the current version)`),
    );
    const setCurrent = () =>
      cli.h.client.workflowService
        .setWorkerDeploymentCurrentVersion({ namespace: 'default', deploymentName: name, buildId: 'v1' })
        .then(
          () => 'set',
          (err: Error) => err.message,
        );
    await eventually(setCurrent, (outcome) => outcome === 'set');

    cli.fake.script({ content: 'Served by v1.' });
    const started = await waveloop(['run', '--detach', '--json', 'Say hello'], env);
    const { workflowId } = JSON.parse(started.stdout) as { workflowId: string };
    expect(await new WaveloopClient(cli.h.client, queue).runs.result(workflowId)).toMatchObject({
      status: 'completed',
      answer: 'Served by v1.',
    });
    const { raw } = await cli.h.client.workflow.getHandle(workflowId).describe();
    expect(raw.workflowExecutionInfo?.versioningInfo?.deploymentVersion).toMatchObject({
      deploymentName: name,
      buildId: 'v1',
    });
    worker.kill('SIGTERM');
    expect((await settled(worker.done, 'waveloop worker ignored SIGTERM.')).code).toBe(0);
    cli.fake.assertDone();
  });
});
