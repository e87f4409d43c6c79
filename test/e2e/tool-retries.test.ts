import type { History } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, ToolError } from '../../src/tools/define';
import { toolMessages } from '../support/fake-model';
import { Harness } from '../support/harness';
import { activities } from '../support/history';
import { eventually } from '../support/wait';

/**
 * What a failing tool costs and what the model reads of it: a plain error is retried as the
 * tool's `retry` says (by Temporal for `read` and `idempotent` tools, by the run for `write` ones)
 * and the model reads the last attempt's words; a `ToolError` is not retried; an attempt that
 * outlives `timeoutSeconds` is cut by Temporal (a start-to-close timeout).
 */
const h = new Harness();
beforeAll(() => h.start());
afterAll(() => h.stop());

const { EventType, TimeoutType, RetryState } = temporal.api.enums.v1;

/** The attempts each tool call made, by the model's call id. */
function attemptCounter() {
  const counts = new Map<string, number>();
  return {
    next: (callId: string) => {
      const n = (counts.get(callId) ?? 0) + 1;
      counts.set(callId, n);
      return n;
    },
    of: (callId: string) => counts.get(callId) ?? 0,
  };
}

/** The events of the runTool activity scheduled for `toolCallId`: scheduled, started, and how it ended. */
function toolEvents(history: History, toolCallId: string) {
  const events = history.events ?? [];
  const story = activities(history).find(
    (a) => a.type === 'runTool' && (a.input as { toolCallId?: string }).toolCallId === toolCallId,
  );
  if (!story) throw new Error(`No runTool activity for ${toolCallId}.`);
  const scheduled = events.find((e) => Number(e.eventId) === story.scheduledEventId)!;
  const id = Number(scheduled.eventId);
  const of = (e: (typeof events)[number]) =>
    Number(
      (
        e.activityTaskStartedEventAttributes ??
        e.activityTaskCompletedEventAttributes ??
        e.activityTaskFailedEventAttributes ??
        e.activityTaskTimedOutEventAttributes
      )?.scheduledEventId,
    );
  const later = events.filter((e) => of(e) === id);
  return {
    scheduled: scheduled.activityTaskScheduledEventAttributes!,
    started: later.find((e) => e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED)
      ?.activityTaskStartedEventAttributes,
    ended: later.find((e) => e.eventType !== EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED),
  };
}

const ms = (duration: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
  Number(duration?.seconds ?? 0) * 1000 + Math.round((duration?.nanos ?? 0) / 1e6);

describe('tool retries and timeouts', () => {
  it("a plain Error: the call is retried per the tool's retry; the model reads the last attempt's error, or the result once an attempt succeeds", async () => {
    const attempts = attemptCounter();
    const lookup = defineTool({
      name: 'shaky_lookup',
      description: 'Looks a key up in a service that sometimes fails.',
      parameters: z.object({ key: z.string(), succeedOn: z.number() }),
      effect: 'read',
      // Its calls are activities, whose attempts Temporal retries and the history shows.
      localActivity: false,
      retry: { maximumAttempts: 4, initialIntervalSeconds: 0.1, backoffCoefficient: 1.5, maximumIntervalSeconds: 0.2 },
      execute: ({ key, succeedOn }, { toolCallId }) => {
        const n = attempts.next(toolCallId);
        if (n < succeedOn) throw new Error(`the lookup service is down (attempt ${n})`);
        return `value of ${key} (attempt ${n})`;
      },
    });
    h.fake.script(
      {
        toolCalls: [
          { id: 'call_never', name: 'shaky_lookup', args: { key: 'a', succeedOn: 99 } },
          { id: 'call_third', name: 'shaky_lookup', args: { key: 'b', succeedOn: 3 } },
        ],
      },
      { content: 'b is there; a could not be read.' },
    );
    const { handle, result } = await h.run({ goal: 'Look a and b up' }, { extraTools: [lookup] });

    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', iterations: 2 });
    expect(toolMessages(h.fake.requests[1])).toEqual([
      'Error: the lookup service is down (attempt 4)',
      'value of b (attempt 3)',
    ]);
    expect(attempts.of('call_never')).toBe(4);
    expect(attempts.of('call_third')).toBe(3);

    const history = await handle.fetchHistory();
    const never = toolEvents(history, 'call_never');
    // The activity was scheduled with the tool's own policy, not the default.
    expect(never.scheduled.retryPolicy).toMatchObject({ maximumAttempts: 4, backoffCoefficient: 1.5 });
    expect(ms(never.scheduled.retryPolicy!.initialInterval)).toBe(100);
    expect(ms(never.scheduled.retryPolicy!.maximumInterval)).toBe(200);
    expect(never.started).toMatchObject({ attempt: 4 });
    expect(never.started!.lastFailure?.message).toBe('the lookup service is down (attempt 3)');
    expect(never.ended!.eventType).toBe(EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED);
    const failure = never.ended!.activityTaskFailedEventAttributes!;
    expect(failure.retryState).toBe(RetryState.RETRY_STATE_MAXIMUM_ATTEMPTS_REACHED);
    expect(failure.failure?.message).toBe('the lookup service is down (attempt 4)');
    expect(failure.failure?.applicationFailureInfo).toMatchObject({ type: 'ToolFailed', nonRetryable: false });

    const third = toolEvents(history, 'call_third');
    expect(third.started).toMatchObject({ attempt: 3 });
    expect(third.ended!.eventType).toBe(EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED);
  });

  it("a write tool: each attempt is an activity of its own, and the run retries a plain Error per the tool's retry, a durable timer between attempts; a ToolError ends the call at once", async () => {
    const attempts = attemptCounter();
    const ledger = defineTool({
      name: 'post_ledger',
      description: 'Posts an entry to the ledger.',
      parameters: z.object({ entry: z.string() }),
      retry: { maximumAttempts: 4, initialIntervalSeconds: 0.1, backoffCoefficient: 2, maximumIntervalSeconds: 0.2 },
      execute: ({ entry }, { toolCallId }) => {
        const n = attempts.next(toolCallId);
        if (entry === 'closed') throw new ToolError('The ledger is closed');
        if (n < 3) throw new Error(`the ledger is busy (attempt ${n})`);
        return `posted ${entry} (attempt ${n})`;
      },
    });
    h.fake.script(
      {
        toolCalls: [
          { id: 'call_busy', name: 'post_ledger', args: { entry: 'rent' } },
          { id: 'call_closed', name: 'post_ledger', args: { entry: 'closed' } },
        ],
      },
      { content: 'Rent is posted.' },
    );
    const { handle, result } = await h.run({ goal: 'Post rent' }, { extraTools: [ledger] });

    h.fake.assertDone();
    expect(toolMessages(h.fake.requests[1])).toEqual(['posted rent (attempt 3)', 'Error: The ledger is closed']);
    expect([attempts.of('call_busy'), attempts.of('call_closed')]).toEqual([3, 1]);
    // Thrown errors say nothing was done: no unknown outcome.
    expect(result!.waves[0].calls.map((call) => call.outcome)).toEqual([undefined, undefined]);
    const history = await handle.fetchHistory();
    const busy = activities(history).filter(
      (a) => a.type === 'runTool' && (a.input as { toolCallId?: string }).toolCallId === 'call_busy',
    );
    expect(busy).toHaveLength(3);
    const scheduled = (history.events ?? []).filter(
      (e) =>
        e.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool' &&
        busy.some((a) => a.scheduledEventId === Number(e.eventId)),
    );
    expect(scheduled.map((e) => e.activityTaskScheduledEventAttributes!.retryPolicy?.maximumAttempts)).toEqual([
      1, 1, 1,
    ]);
    // The backoff's timers (besides the run's own time limit's).
    const timers = (history.events ?? [])
      .filter((e) => e.eventType === EventType.EVENT_TYPE_TIMER_STARTED)
      .map((e) => ms(e.timerStartedEventAttributes!.startToFireTimeout))
      .filter((wait) => wait < 1_000);
    expect(timers).toEqual([100, 200]);
  });

  it('retry defaults: a tool whose retry does not say how many attempts gets three', async () => {
    const attempts = attemptCounter();
    const down = defineTool({
      name: 'always_down',
      description: 'A service that is always down.',
      parameters: z.object({}),
      effect: 'read',
      // Its calls are activities, whose attempts Temporal retries and the history shows.
      localActivity: false,
      retry: { initialIntervalSeconds: 0.05 },
      execute: (_args, { toolCallId }) => {
        throw new Error(`still down (attempt ${attempts.next(toolCallId)})`);
      },
    });
    h.fake.script({ toolCalls: [{ id: 'call_down', name: 'always_down', args: {} }] }, { content: 'It is down.' });
    const { handle, result } = await h.run({ goal: 'Try the service' }, { extraTools: [down] });

    h.fake.assertDone();
    expect(result!.status).toBe('completed');
    expect(toolMessages(h.fake.requests[1])).toEqual(['Error: still down (attempt 3)']);
    expect(attempts.of('call_down')).toBe(3);
    const { scheduled, started } = toolEvents(await handle.fetchHistory(), 'call_down');
    expect(scheduled.retryPolicy?.maximumAttempts).toBe(3);
    expect(started?.attempt).toBe(3);
    // A dead worker's call is tried again once it has been unheard of for 10 s (heartbeatSeconds).
    expect(ms(scheduled.heartbeatTimeout)).toBe(10_000);
  });

  it("heartbeatSeconds: the worker's value is every model and tool call's heartbeat timeout", async () => {
    const profile = defineTool({
      name: 'profile',
      description: 'Reads a profile (its calls are activities, which heartbeat).',
      parameters: z.object({ id: z.number() }),
      effect: 'read',
      localActivity: false,
      execute: ({ id }) => `profile ${id}`,
    });
    h.fake.script({ toolCalls: [{ id: 'call_hb', name: 'profile', args: { id: 2 } }] }, { content: 'Found.' });
    const { handle, result } = await h.run({ goal: 'Look user 2 up' }, { heartbeatSeconds: 4, extraTools: [profile] });
    expect(result!.status).toBe('completed');
    const scheduled = (await handle.fetchHistory()).events!.filter(
      (e) => e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED,
    );
    const timeouts = scheduled.map((e) => [
      e.activityTaskScheduledEventAttributes!.activityType!.name,
      ms(e.activityTaskScheduledEventAttributes!.heartbeatTimeout),
    ]);
    expect(timeouts).toContainEqual(['callModel', 4_000]);
    expect(timeouts).toContainEqual(['runTool', 4_000]);
  });

  it('ToolError: one attempt, whatever the retry allows; the model reads "Error: <message>"', async () => {
    const attempts = attemptCounter();
    const invoices = defineTool({
      name: 'get_invoice',
      description: 'An invoice by number.',
      parameters: z.object({ number: z.number() }),
      effect: 'read',
      // Its calls are activities, whose attempts Temporal retries and the history shows.
      localActivity: false,
      retry: { maximumAttempts: 5, initialIntervalSeconds: 0.05 },
      execute: ({ number }, { toolCallId }) => {
        attempts.next(toolCallId);
        throw new ToolError(`No invoice ${number}`);
      },
    });
    h.fake.script(
      { toolCalls: [{ id: 'call_invoice', name: 'get_invoice', args: { number: 42 } }] },
      { content: 'There is no invoice 42.' },
    );
    const { handle, result } = await h.run({ goal: 'Read invoice 42' }, { extraTools: [invoices] });

    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', answer: 'There is no invoice 42.' });
    expect(toolMessages(h.fake.requests[1])).toEqual(['Error: No invoice 42']);
    expect(result!.waves[0].calls[0]).toMatchObject({ ok: false, error: 'No invoice 42' });
    expect(attempts.of('call_invoice')).toBe(1);

    const { scheduled, started, ended } = toolEvents(await handle.fetchHistory(), 'call_invoice');
    expect(scheduled.retryPolicy?.maximumAttempts).toBe(5);
    expect(started?.attempt).toBe(1);
    expect(ended!.eventType).toBe(EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED);
    const failed = ended!.activityTaskFailedEventAttributes!;
    expect(failed.retryState).toBe(RetryState.RETRY_STATE_NON_RETRYABLE_FAILURE);
    expect(failed.failure?.applicationFailureInfo).toMatchObject({ type: 'ToolError', nonRetryable: true });
  });

  it('localActivity: a plain Error is retried in the worker per the retry, a ToolError not at all; the model reads both errors', async () => {
    const attempts = attemptCounter();
    const cached = defineTool({
      name: 'cached_rate',
      description: 'An exchange rate from the local cache.',
      parameters: z.object({ currency: z.string() }),
      localActivity: true,
      retry: { maximumAttempts: 2, initialIntervalSeconds: 0.05 },
      execute: ({ currency }, { toolCallId }) => {
        const n = attempts.next(toolCallId);
        if (currency === 'XXX') throw new ToolError('No rate for XXX');
        throw new Error(`the cache is locked (attempt ${n})`);
      },
    });
    h.fake.script(
      {
        toolCalls: [
          { id: 'call_locked', name: 'cached_rate', args: { currency: 'EUR' } },
          { id: 'call_unknown', name: 'cached_rate', args: { currency: 'XXX' } },
        ],
      },
      { content: 'No rates today.' },
    );
    const { handle, result } = await h.run({ goal: 'Rates for EUR and XXX' }, { extraTools: [cached] });

    h.fake.assertDone();
    expect(result!.status).toBe('completed');
    expect(toolMessages(h.fake.requests[1])).toEqual([
      'Error: the cache is locked (attempt 2)',
      'Error: No rate for XXX',
    ]);
    expect([attempts.of('call_locked'), attempts.of('call_unknown')]).toEqual([2, 1]);
    // Local activities: markers in the workflow's history, no activity tasks of the server.
    const history = await handle.fetchHistory();
    expect(activities(history).filter((a) => a.type === 'runTool')).toEqual([]);
    const markers = history.events!.filter(
      (e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity',
    );
    // resolveRun, then the two calls.
    expect(markers).toHaveLength(3);
  });

  it('timeoutSeconds: an attempt that outlives it is cut by a start-to-close timeout, its signal fires, and the model reads the timeout', async () => {
    const attempts = attemptCounter();
    let aborted = 0;
    const stuck = defineTool({
      name: 'stuck_export',
      description: 'An export that never finishes.',
      parameters: z.object({}),
      effect: 'idempotent',
      timeoutSeconds: 1,
      retry: { maximumAttempts: 2, initialIntervalSeconds: 0.05 },
      execute: async (_args, { toolCallId, signal }) => {
        attempts.next(toolCallId);
        // Never done on its own: only the activity's cancellation ends it.
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
        aborted += 1;
        throw new Error('export aborted');
      },
    });
    h.fake.script(
      { toolCalls: [{ id: 'call_export', name: 'stuck_export', args: {} }] },
      { content: 'The export timed out.' },
    );
    const { handle, result } = await h.run({ goal: 'Export everything' }, { extraTools: [stuck] });

    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', answer: 'The export timed out.' });
    const [seen] = toolMessages(h.fake.requests[1]);
    // Temporal's words for the cut attempt, not what the tool threw once its signal fired.
    expect(seen).toBe('Error: activity StartToClose timeout');
    expect(attempts.of('call_export')).toBe(2);

    const { scheduled, started, ended } = toolEvents(await handle.fetchHistory(), 'call_export');
    expect(ms(scheduled.startToCloseTimeout)).toBe(1_000);
    expect(started?.attempt).toBe(2);
    expect(started?.lastFailure?.timeoutFailureInfo?.timeoutType).toBe(TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE);
    expect(ended!.eventType).toBe(EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT);
    const timedOut = ended!.activityTaskTimedOutEventAttributes!;
    expect(timedOut.retryState).toBe(RetryState.RETRY_STATE_MAXIMUM_ATTEMPTS_REACHED);
    expect(timedOut.failure?.timeoutFailureInfo?.timeoutType).toBe(TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE);
    // The worker was told: each cut attempt's signal fired, so the tool could stop its work.
    await eventually(
      () => aborted,
      (n) => n === 2,
      { problem: 'A timed-out attempt never saw its signal fire.' },
    );
  });
});
