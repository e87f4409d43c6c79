import * as path from 'node:path';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliFixture, waveloop, type CliFixture } from '../support/cli';
import { eventually } from '../support/wait';

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
    return Math.max(...pollers!.map((p) => Number(p.lastAccessTime!.seconds) * 1000 + Math.floor((p.lastAccessTime!.nanos ?? 0) / 1e6)));
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
});
