import { randomUUID } from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';
import { temporal } from '@temporalio/proto';
import type { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NoWorkerError, WaveloopClient } from '../../src';
import { cliFixture, waveloop, type CliFixture } from '../support/cli';
import { waitForProgress } from '../support/harness';
import { settled } from '../support/wait';

/** Preloaded into a CLI process to run its clock ahead (test/support/clock-ahead.cjs). */
const CLOCK_AHEAD = path.join(__dirname, '..', 'support', 'clock-ahead.cjs');

/**
 * Deciding (`answer`, `approve`, `deny`, `send`, `end`) on a run that no worker serves: only a
 * worker takes a decision, so the command and the client say so at once, send nothing, and the run
 * waits on as it was; or, when a worker polled a moment ago, they wait for it a bounded time.
 */
describe('decisions without a worker', () => {
  let cli: CliFixture;

  beforeAll(async () => {
    cli = await cliFixture('decide-no-worker', { worker: false });
  });
  afterAll(() => cli.stop());

  /** A worker on `queue` until `stop()` (which waits until it has shut down). */
  const workerOn = async (queue: string) => {
    const { worker } = await cli.h.worker({ taskQueue: queue });
    const running = worker.run();
    return {
      worker: worker as Worker,
      async stop() {
        worker.shutdown();
        await running;
      },
    };
  };

  /** Starts a run on `queue` whose calculator calls wait for approval; the model asks for 6*7, then answers. */
  const startRun = async (queue: string) => {
    cli.fake.script({ toolCalls: [{ name: 'calculator', args: { expression: '6*7' } }] }, { content: 'It is 42.' });
    const client = new WaveloopClient(cli.h.client, queue);
    const workflowId = `decide-${randomUUID().slice(0, 8)}`;
    await client.runs.start({ goal: 'Compute 6*7', toolsToApprove: ['calculator'] }, { workflowId, timeout: '2m' });
    return { client, workflowId };
  };

  /** Waits until the run waits for the approval of a call, and returns its call id. */
  const pendingCall = async (workflowId: string) => {
    const waiting = await waitForProgress(
      cli.h.client,
      cli.h.client.workflow.getHandle(workflowId),
      (p) => p.status === 'waiting_for_approval',
    );
    return waiting.pendingApprovals[0].callId;
  };

  /** When a worker last polled `queue`, as the server lists it. */
  const lastPoll = async (queue: string) => {
    const { pollers } = await cli.h.client.workflowService.describeTaskQueue({
      namespace: 'default',
      taskQueue: { name: queue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
      taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    });
    return Math.max(
      ...(pollers ?? []).map(
        (p) => Number(p.lastAccessTime!.seconds) * 1000 + Math.floor((p.lastAccessTime!.nanos ?? 0) / 1e6),
      ),
    );
  };

  it("waveloop approve, deny, answer, send and end: with the run's worker stopped, each says no worker polls its task queue and how to start one, exits 1 and sends nothing; once a worker runs, the call still waits and approve runs it", async () => {
    const queue = `${cli.taskQueue}-stopped`;
    const { client, workflowId } = await startRun(queue);
    const first = await workerOn(queue);
    const callId = await pendingCall(workflowId);
    await first.stop();

    // The commands run as they would once the stopped worker's last poll is 75 s old (a worker that
    // has just stopped counts as live for 70 s), without waiting that long.
    const ahead = 75_000 - (Date.now() - (await lastPoll(queue)));
    const env = { ...cli.env, NODE_OPTIONS: `--require ${CLOCK_AHEAD}`, CLOCK_AHEAD_MS: String(ahead) };
    const commands = [
      ['approve', workflowId, callId],
      ['deny', workflowId, callId, '--reason', 'not now'],
      ['answer', workflowId, 'EPAM'],
      ['send', workflowId, 'And Alice?'],
      ['end', workflowId],
    ];
    const outs = await Promise.all(
      commands.map((args) => settled(waveloop(args, env), `waveloop ${args[0]} waited for a worker.`)),
    );
    for (const [i, out] of outs.entries()) {
      expect([out.code, out.stdout, out.stderr]).toEqual([
        1,
        '',
        `No worker polls task queue "${queue}", so run ${workflowId} cannot take the decision, and nothing was sent (the run waits on): ` +
          `start one with \`WAVELOOP_TASK_QUEUE=${queue} waveloop worker\` (or \`WAVELOOP_TASK_QUEUE=${queue} waveloop dev\`). ` +
          `Then run \`waveloop ${commands[i][0]}\` again.\n`,
      ]);
    }

    // Nothing reached the run: once a worker runs, the call still waits, and approving it runs it.
    const second = await workerOn(queue);
    try {
      expect(await pendingCall(workflowId)).toBe(callId);
      const approved = await waveloop(['approve', workflowId, callId], cli.env);
      expect([approved.code, approved.stdout]).toEqual([
        0,
        `Approved calculator (call ${callId}), as ${os.userInfo().username}.\n`,
      ]);
      expect(await client.runs.result(workflowId)).toMatchObject({ status: 'completed', answer: 'It is 42.' });
    } finally {
      await second.stop();
    }
    expect((await client.runs.decisions(workflowId)).map((d) => [d.name, d.args])).toEqual([
      ['approve', [callId, { by: os.userInfo().username }]],
    ]);
    cli.fake.assertDone();
  });

  it('runs.approve, deny, answer, send and end: on a run whose task queue no worker polls, rejected with NoWorkerError, nothing sent; the run goes on once a worker runs', async () => {
    const queue = `${cli.taskQueue}-never`;
    const { client, workflowId } = await startRun(queue);

    const decisions = [
      () => client.runs.approve(workflowId, 'call_1'),
      () => client.runs.deny(workflowId, 'call_1', { reason: 'not now' }),
      () => client.runs.answer(workflowId, 'EPAM'),
      () => client.runs.send(workflowId, 'And Alice?'),
      () => client.runs.end(workflowId),
    ];
    for (const decide of decisions) {
      const err = await decide().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(NoWorkerError);
      expect(err).toMatchObject({ workflowId, taskQueue: queue, sent: false });
      expect((err as Error).message).toBe(
        `No worker polls task queue "${queue}", so run ${workflowId} cannot take the decision now: nothing was sent, and the run waits on.`,
      );
    }
    // The history has the run's start and its first workflow task waiting for a worker, nothing else.
    const { EventType } = temporal.api.enums.v1;
    const events = (await client.runs.handle(workflowId).fetchHistory()).events ?? [];
    expect(events.map((e) => e.eventType)).toEqual([
      EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED,
      EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED,
    ]);

    const worker = await workerOn(queue);
    try {
      const callId = await pendingCall(workflowId);
      await client.runs.approve(workflowId, callId);
      expect(await client.runs.result(workflowId)).toMatchObject({ status: 'completed', answer: 'It is 42.' });
    } finally {
      await worker.stop();
    }
    cli.fake.assertDone();
  });

  it('runs.approve: a worker that has just stopped still counts as live, so the decision is sent and waits at most waitSeconds (NoWorkerError, sent); a worker that takes the run up soon still applies it', async () => {
    const queue = `${cli.taskQueue}-just-stopped`;
    const { client, workflowId } = await startRun(queue);
    const first = await workerOn(queue);
    const callId = await pendingCall(workflowId);
    await first.stop();
    expect(await client.hasLiveWorker(queue)).toBe(true);

    const err = await client.runs.approve(workflowId, callId, { waitSeconds: 2 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NoWorkerError);
    expect(err).toMatchObject({ workflowId, taskQueue: queue, sent: true, waitedMs: 2_000 });
    expect((err as Error).message).toBe(
      `No worker took the decision within 2 s (task queue "${queue}"): it may still reach run ${workflowId} if a worker takes the run up soon, or be lost.`,
    );
    expect(await client.runs.decisions(workflowId)).toEqual([]);

    // The server held the decision: the next worker applies it, and the call runs.
    const second = await workerOn(queue);
    try {
      expect(await client.runs.result(workflowId)).toMatchObject({ status: 'completed', answer: 'It is 42.' });
    } finally {
      await second.stop();
    }
    // Decided through the client without a name: its Temporal identity says who.
    expect((await client.runs.decisions(workflowId)).map((d) => [d.name, d.args])).toEqual([
      ['approve', [callId, { by: client.temporal.options.identity }]],
    ]);
    cli.fake.assertDone();
  });
});
