import type { History } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { WaveloopClient } from '../../src/client/waveloop-client';
import { approveUpdate } from '../../src/contract/messages';
import { defineTool } from '../../src/tools/define';
import { toolMessages } from '../support/fake-model';
import { achievement, assess, decomposition, goalModel, synthesis } from '../support/goal-model';
import { Harness, waitForProgress } from '../support/harness';
import { eventually } from '../support/wait';

/**
 * Flow control on a real server, read from the runs' histories: how many tool calls of a wave run
 * at once (`maxParallelTools`), how many sub-goals of a level (`maxParallelGoals`), and the Priority
 * every activity and child workflow of a run is scheduled with.
 */
const h = new Harness();
beforeAll(() => h.start());
afterAll(() => h.stop());

const EventType = temporal.api.enums.v1.EventType;

/**
 * The most `runTool` activities open at once, walking the history in order: scheduled and not yet
 * closed (`scheduled`), and started and not yet closed (`started`, the activities a worker ran).
 */
function mostInFlight(history: History): { scheduled: number; started: number } {
  const open = new Set<number>();
  const running = new Set<number>();
  const most = { scheduled: 0, started: 0 };
  for (const event of history.events ?? []) {
    const closed =
      event.activityTaskCompletedEventAttributes ??
      event.activityTaskFailedEventAttributes ??
      event.activityTaskTimedOutEventAttributes ??
      event.activityTaskCanceledEventAttributes;
    if (event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) {
      if (event.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool') open.add(Number(event.eventId));
    } else if (event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED) {
      const id = Number(event.activityTaskStartedEventAttributes!.scheduledEventId);
      if (open.has(id)) running.add(id);
    } else if (closed) {
      open.delete(Number(closed.scheduledEventId));
      running.delete(Number(closed.scheduledEventId));
    }
    most.scheduled = Math.max(most.scheduled, open.size);
    most.started = Math.max(most.started, running.size);
  }
  return most;
}

describe('flow control: wave width', () => {
  it('maxParallelTools 3: a wave of 12 calls never has more than 3 tool activities open; the results reach the model in call order', async () => {
    // Each odd call finishes only after the call after it has, so the calls settle out of call
    // order whatever the timing (the call after an odd one always gets a place: an odd call waits only
    // for an even one, which finishes at once).
    const finished: number[] = [];
    const echo = defineTool({
      name: 'slow_echo',
      description: 'Echoes n after a while.',
      parameters: z.object({ n: z.number() }),
      execute: async ({ n }) => {
        while (n % 2 === 1 && n < 12 && !finished.includes(n + 1)) await new Promise((r) => setTimeout(r, 5));
        finished.push(n);
        return `echo ${n}`;
      },
    });
    const calls = Array.from({ length: 12 }, (_, i) => ({
      id: `call_${i + 1}`,
      name: 'slow_echo',
      args: { n: i + 1 },
    }));
    h.fake.script({ toolCalls: calls }, (request) => {
      const results = request.messages.filter((m) => m.role === 'tool');
      expect(results.map((m) => m.tool_call_id)).toEqual(calls.map((c) => c.id));
      expect(toolMessages(request)).toEqual(calls.map((c) => `echo ${c.args.n}`));
      return { content: 'All twelve echoed.' };
    });

    const { handle, result } = await h.run(
      { goal: 'Echo 1 to 12', tools: ['slow_echo'], maxParallelTools: 3 },
      { extraTools: [echo] },
    );

    expect(result).toMatchObject({ status: 'completed', answer: 'All twelve echoed.' });
    expect(result!.waves[0].calls.map((c) => c.id)).toEqual(calls.map((c) => c.id));
    // They did settle out of order: 2 before 1, 4 before 3, …
    expect(finished.indexOf(2)).toBeLessThan(finished.indexOf(1));
    expect(finished.indexOf(12)).toBeLessThan(finished.indexOf(11));
    const most = mostInFlight(await handle.fetchHistory());
    // Exactly 3: the wave is held to its width, and still runs that many side by side.
    expect(most.scheduled).toBe(3);
    expect(most.started).toBeLessThanOrEqual(3);
  });

  it('maxParallelTools 1: a call waiting for approval holds no place, so the calls after it run meanwhile', async () => {
    const bob = h.db.prepare("SELECT id FROM users WHERE name LIKE 'Bob%'").get() as { id: number };
    h.fake.script(
      {
        toolCalls: [
          { id: 'call_update', name: 'update_user', args: { id: bob.id, company: 'EPAM' } },
          { id: 'call_get', name: 'get_user', args: { id: bob.id } },
          { id: 'call_search', name: 'search_users', args: { name: 'Alice' } },
        ],
      },
      { content: 'Done.' },
    );
    const { result } = await h.run(
      { goal: 'Update Bob', agent: 'back-office', maxParallelTools: 1 },
      {
        during: async (handle) => {
          // Both other calls settle while update_user still waits for its decision.
          const waiting = await waitForProgress(
            h.client,
            handle,
            (p) => p.pendingApprovals.length === 1 && (p.settling?.calls.length ?? 0) === 2,
          );
          expect(waiting.settling!.calls.map((c) => c.id)).toEqual(['call_get', 'call_search']);
          await handle.executeUpdate(approveUpdate, { args: ['call_update', { by: 'ann' }] });
        },
      },
    );
    expect(result).toMatchObject({ status: 'completed' });
    expect(result!.waves[0].calls.map((c) => [c.id, c.ok])).toEqual([
      ['call_update', true],
      ['call_get', true],
      ['call_search', true],
    ]);
  });
});

/** The Priority of each activity a history scheduled (by activity type) and of each child it started (by workflow type). */
function placements(history: History): Array<{ kind: string; priority: unknown }> {
  const plain = (
    p: { priorityKey?: number | null; fairnessKey?: string | null; fairnessWeight?: number | null } | null | undefined,
  ) => ({
    priorityKey: p?.priorityKey || undefined,
    fairnessKey: p?.fairnessKey || undefined,
    fairnessWeight: p?.fairnessWeight || undefined,
  });
  return (history.events ?? []).flatMap((event) => {
    const activity = event.activityTaskScheduledEventAttributes;
    if (activity) return [{ kind: activity.activityType!.name!, priority: plain(activity.priority) }];
    const child = event.startChildWorkflowExecutionInitiatedEventAttributes;
    if (child) return [{ kind: `child ${child.workflowType!.name!}`, priority: plain(child.priority) }];
    return [];
  });
}

/** A read whose calls are activities (`localActivity: false`), so their placement is in the history. */
const multiply = defineTool({
  name: 'multiply',
  description: 'Multiplies two numbers.',
  parameters: z.object({ a: z.number(), b: z.number() }),
  effect: 'read',
  localActivity: false,
  execute: ({ a, b }) => String(a * b),
});

describe('flow control: priority and fairness', () => {
  const PLACED = { priorityKey: 2, fairnessKey: 'tenant-a', fairnessWeight: 2.5 };

  it('a run with priority, fairnessKey and fairnessWeight schedules every model call and tool call with them', async () => {
    h.fake.script({ toolCalls: [{ name: 'multiply', args: { a: 6, b: 7 } }] }, { content: '42' });
    const { handle, result } = await h.run(
      { goal: 'What is 6 * 7?', tools: ['multiply'], priority: 2, fairnessKey: 'tenant-a', fairnessWeight: 2.5 },
      { extraTools: [multiply] },
    );
    expect(result).toMatchObject({ status: 'completed', answer: '42' });
    expect(placements(await handle.fetchHistory())).toEqual([
      { kind: 'callModel', priority: PLACED },
      { kind: 'runTool', priority: PLACED },
      { kind: 'callModel', priority: PLACED },
    ]);
  });

  it('a run started by the client carries its Priority from the start: its workflow started event, runs.status and runs.list show it', async () => {
    h.fake.script({ content: 'Done.' });
    const { worker, taskQueue } = await h.worker();
    const client = new WaveloopClient(h.client, taskQueue);
    const workflowId = `placed-${Date.now()}`;
    await worker.runUntil(async () => {
      await client.runs.start({ goal: 'Say done', priority: 1, fairnessKey: 'acme' }, { workflowId });
      await client.runs.result(workflowId);
    });
    const history = await client.runs.handle(workflowId).fetchHistory();
    const started = history.events![0].workflowExecutionStartedEventAttributes!.priority;
    expect({ priorityKey: started?.priorityKey, fairnessKey: started?.fairnessKey }).toEqual({
      priorityKey: 1,
      fairnessKey: 'acme',
    });
    expect(placements(history)).toEqual([
      { kind: 'callModel', priority: { priorityKey: 1, fairnessKey: 'acme', fairnessWeight: undefined } },
    ]);
    expect((await client.runs.status(workflowId)).priority).toEqual({ priorityKey: 1, fairnessKey: 'acme' });
    const listed = await eventually(
      () => client.runs.list({ limit: 1000 }),
      (runs) => runs.some((run) => run.workflowId === workflowId && run.status === 'completed'),
    );
    expect(listed.find((run) => run.workflowId === workflowId)!.priority).toEqual({
      priorityKey: 1,
      fairnessKey: 'acme',
    });
  });

  it("a goal tree's priority reaches its model calls, its child goals and their tool loops; maxParallelGoals 1 starts the next sub-goal when one ends", async () => {
    const GOAL = 'Compare two numbers';
    const [A, B] = ['Compute 6 times 7', 'Recall the answer to everything'];
    const router = goalModel({
      [GOAL]: {
        assessment: [assess.decompose()],
        decomposition: [decomposition(A, B)],
        achievement: [achievement(true)],
        synthesis: [synthesis('Both are 42.', ['42'])],
      },
      [A]: {
        assessment: [assess.tools('multiply')],
        agent: [{ toolCalls: [{ name: 'multiply', args: { a: 6, b: 7 } }] }, { content: '6 times 7 is 42.' }],
      },
      [B]: { assessment: [assess.answer()], synthesis: [synthesis('It is 42.', ['42'])] },
    });
    h.fake.script(...router.steps);

    const { handle, result } = await h.pursue(
      {
        goal: GOAL,
        tools: ['multiply'],
        maxParallelGoals: 1,
        priority: 2,
        fairnessKey: 'tenant-a',
        fairnessWeight: 2.5,
      },
      { extraTools: [multiply] },
    );
    router.assertDone();
    expect(result).toMatchObject({ status: 'achieved', report: { summary: 'Both are 42.' } });

    const root = await handle.fetchHistory();
    expect(placements(root).map((p) => p.kind)).toEqual([
      'resolveGoal',
      'assessGoal',
      'decomposeGoal',
      'child pursueGoal',
      'child pursueGoal',
      'checkAchieved',
      'synthesizeGoal',
    ]);
    expect(placements(root).every((p) => JSON.stringify(p.priority) === JSON.stringify(PLACED))).toBe(true);
    // One at a time: the second sub-goal starts after the first one closed.
    const kinds = (root.events ?? []).map((e) =>
      e.startChildWorkflowExecutionInitiatedEventAttributes
        ? 'start'
        : e.childWorkflowExecutionCompletedEventAttributes
          ? 'end'
          : '',
    );
    expect(kinds.filter(Boolean)).toEqual(['start', 'end', 'start', 'end']);

    const childA = await h.client.workflow.getHandle(`${handle.workflowId}/1`).fetchHistory();
    expect(placements(childA)).toEqual([
      { kind: 'assessGoal', priority: PLACED },
      { kind: 'child agentLoop', priority: PLACED },
    ]);
    const loop = await h.client.workflow.getHandle(`${handle.workflowId}/1/exec`).fetchHistory();
    expect(placements(loop)).toEqual([
      { kind: 'callModel', priority: PLACED },
      { kind: 'runTool', priority: PLACED },
      { kind: 'callModel', priority: PLACED },
    ]);
  });
});
