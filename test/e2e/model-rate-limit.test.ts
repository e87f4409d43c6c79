import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { History } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import { NativeConnection } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAgent } from '../../src/agents/default';
import { defineAgent } from '../../src/agents/define';
import { followRun, type RunEvent } from '../../src/client/follow';
import { WaveloopClient } from '../../src/client/waveloop-client';
import { FailureType } from '../../src/contract/errors';
import type { ChatRequest } from '../support/fake-model';
import { assess, goalModel, synthesis } from '../support/goal-model';
import { Harness } from '../support/harness';
import { eventually } from '../support/wait';

/**
 * `WAVELOOP_MODEL_RPM` on a real server: the runs' model calls go to `<queue>-model`, whose rate the
 * server holds, so a handful of runs started together have their model calls started apart (the
 * server's own event times); a follower of a run held back is told it waits for the model's rate
 * limit; a run asking for local model calls under the limit is refused. And the worker's gate: a
 * 429's `retry-after`, or an endpoint that says its tokens have run out, holds the next run's call
 * on that worker too (the fake model's clock tells when the call came), and its follower is told.
 */
const h = new Harness();
beforeAll(() => h.start());
afterAll(() => h.stop());

const EventType = temporal.api.enums.v1.EventType;
const RPM = 30;
const RUNS = 5;

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
  it(`${RPM} calls a minute on two workers: ${RUNS} runs started together have their model calls started ${60 / RPM} s apart by the server, and a follower of a held run is told`, async () => {
    h.fake.route(() => ({ content: 'Done.' }), { atMost: RUNS });
    // Two workers poll the one model queue: a limit each worker kept for itself would let twice as many calls through.
    const { worker, taskQueue } = await h.worker({ modelRpm: RPM });
    const connection = await NativeConnection.connect({ address: h.address });
    const { worker: second } = await h.worker({ modelRpm: RPM, taskQueue, connection });
    const client = new WaveloopClient(h.client, taskQueue);
    await worker.runUntil(
      second.runUntil(async () => {
        const ids = await Promise.all(
          Array.from({ length: RUNS }, (_, i) =>
            client.runs.start({ goal: `Say done ${i}` }).then((r) => r.workflowId),
          ),
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
      }),
    );
  });

  it("an agent's own modelRpm: its runs' model calls go to a queue of its own, spaced by its rate, while other runs' calls are not held", async () => {
    const AGENT_RPM = 60;
    const slow = defineAgent({ name: 'metered', system: 'You answer.', tools: [], modelRpm: AGENT_RPM });
    h.fake.route(() => ({ content: 'Done.' }), { atMost: RUNS + 1 });
    const { worker, taskQueue } = await h.worker({ agents: [defaultAgent, slow] });
    const client = new WaveloopClient(h.client, taskQueue);
    await worker.runUntil(async () => {
      const ids = await Promise.all(
        Array.from({ length: RUNS }, (_, i) =>
          client.runs.start({ goal: `Say done ${i}`, agent: 'metered' }).then((r) => r.workflowId),
        ),
      );
      const free = await client.runs.start({ goal: 'Say done freely' });
      const results = await Promise.all([...ids, free.workflowId].map((id) => client.runs.result(id)));
      expect(results.map((r) => r.status)).toEqual(Array(RUNS + 1).fill('completed'));

      const calls = (
        await Promise.all(ids.map(async (id) => modelCalls(await h.client.workflow.getHandle(id).fetchHistory())))
      ).flat();
      expect(calls.map((c) => c.taskQueue)).toEqual(Array(RUNS).fill(`${taskQueue}-model-metered`));
      const started = calls.map((c) => c.startedAt).sort((a, b) => a - b);
      const interval = 60_000 / AGENT_RPM;
      for (let i = 0; i < started.length; i++)
        for (let j = i + 1; j < started.length; j++)
          expect(started[j]! - started[i]!).toBeGreaterThanOrEqual((j - i - 1) * interval * 0.9);
      // The default agent has no limit: its call goes to the run's own task queue.
      const [freeCall] = modelCalls(await h.client.workflow.getHandle(free.workflowId).fetchHistory());
      expect(freeCall!.taskQueue).toBe(taskQueue);
    });
  });

  it("a goal tree's model steps go to the model queue too", async () => {
    const GOAL = 'Recall the answer to everything';
    const router = goalModel({
      [GOAL]: { assessment: [assess.answer()], synthesis: [synthesis('It is 42.', ['42'])] },
    });
    h.fake.script(...router.steps);
    const { worker, taskQueue } = await h.worker({ modelRpm: 6_000 });
    const client = new WaveloopClient(h.client, taskQueue);
    await worker.runUntil(async () => {
      const { workflowId } = await client.goals.start({ goal: GOAL });
      expect(await client.goals.result(workflowId)).toMatchObject({ status: 'achieved' });
      const history = await h.client.workflow.getHandle(workflowId).fetchHistory();
      const scheduled = (history.events ?? []).flatMap((e) => {
        const a = e.activityTaskScheduledEventAttributes;
        return a ? [`${a.activityType?.name} on ${a.taskQueue?.name}`] : [];
      });
      expect(scheduled).toEqual([
        `resolveGoal on ${taskQueue}`,
        `assessGoal on ${taskQueue}-model`,
        `answerGoal on ${taskQueue}-model`,
      ]);
    });
    router.assertDone();
  });

  it('a run asking for local model calls under a model rate limit is refused, and nothing reaches the model', async () => {
    h.fake.script();
    const received = h.fake.received;
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
    expect(h.fake.received).toBe(received);
  });
});

/** The goal of a request (its first user message). */
const goalOf = (request: ChatRequest) => request.messages.find((m) => m.role === 'user')?.content ?? '';

describe("the worker's rate-limit gate (the endpoint's headers, 429s)", () => {
  /**
   * Run A meets `first` (a 429, or a reply saying the tokens ran out for 2 s); run B starts once A's
   * answer came, and its model call must wait until the 2 s have passed, its follower told so.
   */
  async function heldAfter(
    first: { status: number; headers: Record<string, string> } | { content: string; headers: Record<string, string> },
  ) {
    let answeredA = 0;
    h.fake.route(
      (request) => {
        if (goalOf(request) === 'A' && answeredA++ === 0) return first;
        return { content: 'Done.' };
      },
      { atMost: 'status' in first ? 3 : 2 },
    );
    const { worker, taskQueue } = await h.worker({ stream: false });
    const client = new WaveloopClient(h.client, taskQueue);
    await worker.runUntil(async () => {
      const a = await client.runs.start({ goal: 'A' });
      const firstAt = (await eventually(() => Promise.resolve(h.fake.requests[0]), Boolean)).receivedAt!;
      // B starts once A's worker has read the answer: A's call failed (429), or A ended.
      if ('status' in first) {
        await eventually(
          () => client.runs.modelCall(a.workflowId),
          (call) => (call?.attempt ?? 0) > 1,
        );
      } else await client.runs.result(a.workflowId);
      const b = await client.runs.start({ goal: 'B' });
      const events: RunEvent[] = [];
      const follower = followRun(client.runs, b.workflowId, {
        onEvent: (event) => {
          if (event.type === 'rate-limit') events.push(event);
        },
      });
      expect(await client.runs.result(b.workflowId)).toMatchObject({ status: 'completed' });
      await follower.stop();
      expect(await client.runs.result(a.workflowId)).toMatchObject({ status: 'completed' });
      expect(events).toEqual([
        expect.objectContaining({ type: 'rate-limit', iteration: 1, until: expect.any(String) }),
      ]);
      // The gate's deadline is the endpoint's 2 s after A's call (a value it computed, not a wait
      // measured here), and B's call reached the endpoint only after it.
      const until = Date.parse((events[0] as { until: string }).until);
      expect(until).toBeGreaterThanOrEqual(firstAt + 2_000);
      const bAt = h.fake.requests.find((r) => goalOf(r) === 'B')!.receivedAt!;
      expect(bAt).toBeGreaterThanOrEqual(until);
    });
  }

  it("a 429 with retry-after 2 s holds the next run's model call on the worker until then; its follower is told", () =>
    heldAfter({ status: 429, headers: { 'retry-after': '2' } }));

  it('x-ratelimit-remaining-tokens 0 holds the next call until x-ratelimit-reset-tokens, before any 429', () =>
    heldAfter({
      content: 'Done.',
      headers: { 'x-ratelimit-remaining-tokens': '0', 'x-ratelimit-reset-tokens': '2s' },
    }));

  it("WAVELOOP_MODEL_TPM: once the minute's tokens are spent, the next run's call is held on the worker until they leave the minute; its follower is told, and the endpoint never sees it", async () => {
    h.fake.route(() => ({ content: 'Done.' }), { atMost: 1 });
    // One reply reports FAKE_USAGE's tokens, more than the whole minute allows.
    const { worker, taskQueue } = await h.worker({ stream: false, modelTpm: 50 });
    const client = new WaveloopClient(h.client, taskQueue);
    await worker.runUntil(async () => {
      const a = await client.runs.start({ goal: 'A' });
      expect(await client.runs.result(a.workflowId)).toMatchObject({ status: 'completed' });
      const firstAt = h.fake.requests[0]!.receivedAt!;
      const b = await client.runs.start({ goal: 'B' });
      const events: RunEvent[] = [];
      const follower = followRun(client.runs, b.workflowId, {
        onEvent: (event) => {
          if (event.type === 'rate-limit') events.push(event);
        },
      });
      await eventually(
        () => events,
        (seen) => seen.length > 0,
        { problem: "B's follower was never told its call is held." },
      );
      await follower.stop();
      // Held until A's tokens leave the minute: a deadline the gate computed, a minute after A's call.
      const until = Date.parse((events[0] as { until: string }).until);
      expect(until).toBeGreaterThanOrEqual(firstAt + 60_000 - 1_000);
      expect(h.fake.requests.map(goalOf)).toEqual(['A']);
      await client.runs.cancel(b.workflowId);
      expect(await client.runs.result(b.workflowId)).toMatchObject({ status: 'cancelled' });
      expect(h.fake.requests.map(goalOf)).toEqual(['A']);
    });
  });
});
