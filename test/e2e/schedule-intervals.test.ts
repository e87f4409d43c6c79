import { randomUUID } from 'node:crypto';
import { ScheduleOverlapPolicy } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliFixture, waveloop, type CliFixture } from '../support/cli';
import { eventually } from '../support/wait';

/**
 * A schedule that fires by its own timing, not by `trigger`: `waveloop schedule create --every`,
 * `pause` and `unpause` on the tests' Temporal server. Whether a paused schedule stays quiet is
 * judged by the server's clock, not the test's: a twin schedule with the same interval (a bare
 * Temporal schedule whose runs nobody serves) keeps firing, and once it has fired at the times the
 * paused one would have, the paused one must have started nothing.
 */
let cli: CliFixture;
beforeAll(async () => {
  cli = await cliFixture('schedule-intervals');
  // Every run the schedules start answers at once: a run a second while a schedule is active, and
  // the file's schedules are active for well under a minute in all.
  cli.fake.route(() => ({ content: 'Report sent.' }), { atMost: 100 });
});
afterAll(() => cli?.stop());

const name = () => `every-${randomUUID().slice(0, 8)}`;

/** What the server says of a schedule: actions taken, and the due times it fired at, in order. */
async function actions(schedule: string) {
  const { info } = await cli.h.client.schedule.getHandle(schedule).describe();
  return {
    taken: info.numActionsTaken,
    scheduledAt: info.recentActions.map((action) => action.scheduledAt.getTime()),
    workflowIds: info.recentActions.map((action) => action.action.workflow.workflowId),
    next: info.nextActionTimes.map((time) => time.getTime()),
  };
}

describe('schedules by their timing', () => {
  it('schedule create --every: an interval under a second is refused (Temporal schedules run at most once a second); nothing is made', async () => {
    const id = name();
    const out = await waveloop(['schedule', 'create', id, 'Too often', '--every', '500ms'], cli.env);
    expect(out.code).toBe(2);
    expect(out.stderr.trim()).toBe(`Schedule "${id}" refused: interval is too small`);
    const listed = await waveloop(['schedule', 'list', '--json'], cli.env);
    expect((JSON.parse(listed.stdout) as Array<{ name: string }>).map((s) => s.name)).not.toContain(id);
  });

  it('schedule --every 1s: starts runs on its own at its due times; paused, it starts none while its due times pass; unpaused, it starts runs again', async () => {
    const id = name();
    const twin = `${id}-twin`;
    const created = await waveloop(['schedule', 'create', id, 'Send the minute report', '--every', '1s'], cli.env);
    expect(created.code, created.stderr).toBe(0);
    try {
      // Two runs, started by the timing alone (nothing triggers it), each an ordinary run that completes.
      const started = await eventually(
        () => cli.client.runs.list({ schedule: id }),
        (runs) => runs.filter((run) => run.status === 'completed').length >= 2,
        { attempts: 300, problem: 'The schedule never started two runs on its own.' },
      );
      for (const run of started.filter((r) => r.status === 'completed').slice(0, 2)) {
        expect(run.workflowId.startsWith(`${id}-`)).toBe(true);
        expect(await cli.client.runs.result(run.workflowId)).toMatchObject({ answer: 'Report sent.' });
      }
      const before = await actions(id);
      expect(before.taken).toBeGreaterThanOrEqual(2);
      // Each action was taken at a due time of the interval: whole seconds.
      expect(before.scheduledAt.every((at) => at % 1_000 === 0)).toBe(true);

      expect((await waveloop(['schedule', 'pause', id], cli.env)).code).toBe(0);
      const paused = await actions(id);
      // The twin fires at every second; the paused schedule would have fired at `paused.next`.
      await cli.h.client.schedule.create({
        scheduleId: twin,
        spec: { intervals: [{ every: '1s' }] },
        action: {
          type: 'startWorkflow',
          workflowType: 'metronome',
          taskQueue: `${cli.taskQueue}-nobody`,
          workflowExecutionTimeout: '1s',
        },
        policies: { overlap: ScheduleOverlapPolicy.ALLOW_ALL },
      });
      const thirdDueTime = paused.next[2]!;
      await eventually(
        () => actions(twin),
        (clock) => clock.scheduledAt.some((at) => at >= thirdDueTime),
        { attempts: 300, problem: 'The twin schedule never reached the paused one’s third due time.' },
      );
      const quiet = await actions(id);
      expect(quiet.taken).toBe(paused.taken);
      expect(quiet.workflowIds).toEqual(paused.workflowIds);
      expect((await cli.client.schedules.describe(id)).paused).toBe(true);

      expect((await waveloop(['schedule', 'unpause', id], cli.env)).code).toBe(0);
      const resumed = await eventually(
        () => actions(id),
        (after) => after.taken > paused.taken,
        { attempts: 300, problem: 'The unpaused schedule never started another run.' },
      );
      // The new run was due after the pause ended, not one of the times it slept through.
      expect(Math.max(...resumed.scheduledAt)).toBeGreaterThan(thirdDueTime);
      // That run is listed with the schedule's runs, and completes.
      const newest = resumed.workflowIds.at(-1)!;
      await eventually(
        () => cli.client.runs.list({ schedule: id }),
        (runs) => runs.some((run) => run.workflowId === newest),
        { problem: 'The run started after the pause was never listed with the schedule.' },
      );
      expect(await cli.client.runs.result(newest)).toMatchObject({ answer: 'Report sent.' });
    } finally {
      await cli.h.client.schedule
        .getHandle(twin)
        .delete()
        .catch(() => undefined);
      await waveloop(['schedule', 'delete', id], cli.env);
    }
  });
});
