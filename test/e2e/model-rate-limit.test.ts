import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { History } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followRun, type RunEvent } from '../../src/client/follow';
import { WaveloopClient } from '../../src/client/waveloop-client';
import { FailureType } from '../../src/contract/errors';
import { Harness } from '../support/harness';

/**
 * `WAVELOOP_MODEL_RPM` on a real server: the runs' model calls go to `<queue>-model`, whose rate the
 * server holds, so a handful of runs started together have their model calls started apart (the
 * server's own event times); a follower of a run held back is told it waits for the model's rate
 * limit; a run asking for local model calls under the limit is refused.
 */
const h = new Harness();
beforeAll(() => h.start());
afterAll(() => h.stop());

const EventType = temporal.api.enums.v1.EventType;
const RPM = 30;
const RUNS = 4;

/** When the server started the run's `callModel` activities (ms), and the task queue they were scheduled on. */
function modelCalls(history: History): Array<{ startedAt: number; taskQueue: string }> {
  const scheduled = new Map<number, string>();
  const calls: Array<{ startedAt: number; taskQueue: string }> = [];
  for (const event of history.events ?? []) {
    const attrs = event.activityTaskScheduledEventAttributes;
    if (attrs?.activityType?.name === 'callModel') scheduled.set(Number(event.eventId), attrs.taskQueue?.name ?? '');
    if (event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED) {
      const queue = scheduled.get(Number(event.activityTaskStartedEventAttributes!.scheduledEventId));
      if (queue !== undefined) {
        const t = event.eventTime!;
        calls.push({ startedAt: Number(t.seconds) * 1000 + Math.floor((t.nanos ?? 0) / 1e6), taskQueue: queue });
      }
    }
  }
  return calls;
}

describe('model rate limit (WAVELOOP_MODEL_RPM)', () => {
  it(`${RPM} calls a minute: ${RUNS} runs started together have their model calls started ${60 / RPM} s apart by the server, and a follower of a held run is told`, async () => {
    h.fake.route(() => ({ content: 'Done.' }), { atMost: RUNS });
    const { worker, taskQueue } = await h.worker({ modelRpm: RPM });
    const client = new WaveloopClient(h.client, taskQueue);
    await worker.runUntil(async () => {
      const ids = await Promise.all(
        Array.from({ length: RUNS }, (_, i) => client.runs.start({ goal: `Say done ${i}` }).then((r) => r.workflowId)),
      );
      const events: RunEvent[] = [];
      const followers = ids.map((id) =>
        followRun(client.runs, id, {
          onEvent: (event) => {
            if (event.type === 'rate-limit') events.push(event);
          },
        }),
      );
      const results = await Promise.all(ids.map((id) => client.runs.result(id)));
      await Promise.all(followers.map((f) => f.stop()));
      expect(results.map((r) => r.status)).toEqual(Array(RUNS).fill('completed'));
      expect(events.length).toBeGreaterThan(0);
      expect(events[0]).toMatchObject({ type: 'rate-limit', iteration: 1, requestsPerMinute: RPM });

      const calls = (
        await Promise.all(ids.map(async (id) => modelCalls(await h.client.workflow.getHandle(id).fetchHistory())))
      ).flat();
      expect(calls.map((c) => c.taskQueue)).toEqual(Array(RUNS).fill(`${taskQueue}-model`));
      const started = calls.map((c) => c.startedAt).sort((a, b) => a - b);
      // The server starts one call every 60/RPM s, with one more at once when its bucket is full:
      // calls i < j are at least (j - i - 1) intervals apart (started together, all would be at 0).
      const interval = 60_000 / RPM;
      for (let i = 0; i < started.length; i++) {
        for (let j = i + 1; j < started.length; j++) {
          expect(started[j]! - started[i]!).toBeGreaterThanOrEqual((j - i - 1) * interval * 0.9);
        }
      }
    });
  }, 30_000);

  it('a run asking for local model calls under a model rate limit is refused, and nothing reaches the model', async () => {
    h.fake.script();
    const { worker, taskQueue } = await h.worker({ modelRpm: RPM });
    const client = new WaveloopClient(h.client, taskQueue);
    await worker.runUntil(async () => {
      const { workflowId } = await client.runs.start({ goal: 'Say done', localModelCalls: true });
      const error = await client.runs.result(workflowId).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(error).toBeInstanceOf(WorkflowFailedError);
      const cause = (error as WorkflowFailedError).cause;
      expect(cause).toBeInstanceOf(ApplicationFailure);
      expect((cause as ApplicationFailure).type).toBe(FailureType.InvalidInput);
      expect(cause?.message).toMatch(/localModelCalls cannot run under a model rate limit \(30 calls a minute/);
    });
    expect(h.fake.received).toBe(RUNS);
  });
});
