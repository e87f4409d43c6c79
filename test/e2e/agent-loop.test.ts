import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { approveUpdate } from '../../src/contract/messages';
import { textHash } from '../../src/contract/text-hash';
import { defineTool } from '../../src/tools/define';
import { FAKE_USAGE, toolMessages, type ChatRequest } from '../support/fake-model';
import { Harness, waitForProgress } from '../support/harness';
import { activities, localActivities, localWaves, recordHistory } from '../support/history';

const h = new Harness();
beforeAll(() => h.start());
afterAll(() => h.stop());

/** The JSON the model received as the result of the latest tool call. */
function lastToolResult(request: ChatRequest): any {
  const results = toolMessages(request);
  return JSON.parse(results[results.length - 1]);
}

describe('agentLoop', () => {
  it('the back-office demo: finds Bob, reads him, updates his company in the database (3 waves, 4 model calls)', async () => {
    h.fake.script(
      { toolCalls: [{ name: 'search_users', args: { name: 'Bob' } }] },
      (req) => ({ toolCalls: [{ name: 'get_user', args: { id: lastToolResult(req)[0].id } }] }),
      (req) => ({ toolCalls: [{ name: 'update_user', args: { id: lastToolResult(req).id, company: 'EPAM' } }] }),
      (req) => ({ content: `Updated ${lastToolResult(req).name}: company is now ${lastToolResult(req).company}.` }),
    );
    const bobBefore = h.db.prepare("SELECT * FROM users WHERE name LIKE 'Bob%'").all() as any[];
    expect(bobBefore).toHaveLength(1);
    expect(bobBefore[0].company).not.toBe('EPAM');

    const { handle, result } = await h.run(
      { goal: 'Find Bob and update his company to EPAM', agent: 'back-office' },
      {
        // update_user needs a person's approval: the run waits for it, showing the call.
        during: async (handle) => {
          const waiting = await waitForProgress(h.client, handle, (p) => p.pendingApprovals.length > 0);
          expect(waiting.status).toBe('waiting_for_approval');
          expect(waiting.pendingApprovals[0]).toMatchObject({
            tool: 'update_user',
            args: { company: 'EPAM' },
            iteration: 3,
          });
          await handle.executeUpdate(approveUpdate, { args: [waiting.pendingApprovals[0].callId, { by: 'ann' }] });
        },
      },
    );
    await recordHistory('find-bob-approved', handle);

    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', iterations: 4 });
    expect(result!.answer).toBe(`Updated ${bobBefore[0].name}: company is now EPAM.`);
    expect(result!.waves.map((w) => w.calls.map((c) => c.tool))).toEqual([
      ['search_users'],
      ['get_user'],
      ['update_user'],
    ]);
    expect(result!.waves.every((w) => w.calls.every((c) => c.ok))).toBe(true);
    expect(result!.usage).toEqual({
      promptTokens: 4 * FAKE_USAGE.prompt_tokens,
      completionTokens: 4 * FAKE_USAGE.completion_tokens,
      totalTokens: 4 * FAKE_USAGE.total_tokens,
    });

    const bobAfter = h.db.prepare('SELECT * FROM users WHERE id = ?').get(bobBefore[0].id) as any;
    expect(bobAfter.company).toBe('EPAM');

    const history = await handle.fetchHistory();
    // resolveRun and the read tools' calls run as local activities (markers, each in the workflow
    // task that received the model's reply); every model call and the idempotent update_user's
    // call are activities of their own.
    expect(localActivities(history).map((a) => a.summary)).toEqual([
      'resolve agent and tools',
      'wave 1 · search_users(name=Bob)',
      `wave 2 · get_user(id=${bobBefore[0].id})`,
    ]);
    const story = activities(history);
    expect(story.map((a) => a.summary)).toEqual([
      'iteration 1 · model',
      'iteration 2 · model',
      'iteration 3 · model',
      // Who may decide and the preview are settled on the worker as the call begins to wait.
      `wave 3 · update_user(id=${bobBefore[0].id}, company=EPAM) · waits for approval`,
      `wave 3 · update_user(id=${bobBefore[0].id}, company=EPAM) · approved by ann`,
      'iteration 4 · model',
    ]);
  });

  it('independent lookups run in parallel: Hanukkah and next weekend as two waves of two calls', async () => {
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
    await recordHistory('hanukkah-waves', handle);

    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', iterations: 3, answer: 'Rooms are available for both.' });
    expect(result!.waves).toHaveLength(2);
    expect(result!.waves[0].calls.map((c) => c.tool)).toEqual(['resolve_holiday', 'resolve_date_hint']);
    expect(JSON.parse(result!.waves[0].calls[0].result!).start).toBe('2026-12-04');
    expect(result!.waves[1].calls.map((c) => c.args.check_in)).toEqual([
      '2026-12-04',
      JSON.parse(result!.waves[0].calls[1].result!).start,
    ]);

    // Read tools: each wave's two calls ran as local activities within the one workflow task that
    // received the model's reply (that they run side by side: local-model-calls.test.ts).
    const waves = localWaves(await handle.fetchHistory());
    expect(waves.map(({ tools, workflowTasks }) => ({ tools: tools.sort(), workflowTasks }))).toEqual([
      { tools: ['resolve_date_hint', 'resolve_holiday'], workflowTasks: 1 },
      { tools: ['get_availability', 'get_availability'], workflowTasks: 1 },
    ]);
    // Results go back to the model in call order.
    const secondRequest = h.fake.requests[1];
    expect(secondRequest.messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual(
      result!.waves[0].calls.map((c) => c.id),
    );
  });

  it('tool failures: a tool error, bad arguments, an unknown tool and broken JSON reach the model as errors', async () => {
    h.fake.script(
      {
        toolCalls: [
          { name: 'get_user', args: { id: 99_999 } },
          { name: 'search_users', args: { name: 42 } },
          { name: 'launch_rocket', args: {}, unoffered: true },
          { name: 'calculator', args: '{"expression": "1+' },
        ],
      },
      { content: 'I could not do it.' },
    );
    const { handle, result } = await h.run({ goal: 'Try some broken things' });
    await recordHistory('tool-failures', handle);

    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', answer: 'I could not do it.', iterations: 2 });
    const seen = toolMessages(h.fake.requests[1]);
    expect(seen).toHaveLength(4);
    expect(seen[0]).toMatch(/^Error: .*99999/);
    expect(seen[1]).toMatch(/^Error: Invalid arguments for search_users: name: /);
    expect(seen[2]).toMatch(/^Error: Unknown tool "launch_rocket"\. Available tools: .*search_users/);
    expect(seen[3]).toMatch(/^Error: the arguments are not valid JSON/);
    expect(result!.waves[0].calls.map((c) => c.ok)).toEqual([false, false, false, false]);

    // Only the two calls to real tools ran (local activities: read tools); neither was retried.
    const tools = localActivities(await handle.fetchHistory()).filter((a) => a.type === 'runTool');
    expect(tools.map((a) => [a.summary, a.attempt])).toEqual([
      ['wave 1 · get_user(id=99999)', 1],
      ['wave 1 · search_users(name=42)', 1],
    ]);
  });

  it('maxIterations: ends with max_iterations, the transcript and the last assistant text', async () => {
    const step = (n: number) => ({
      content: `Thinking, step ${n}`,
      toolCalls: [{ name: 'calculator', args: { expression: `${n} * 2` } }],
    });
    h.fake.script(step(1), step(2));
    const { handle, result, transcript, progress } = await h.run({ goal: 'Count forever', maxIterations: 2 });
    await recordHistory('max-iterations', handle);

    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'max_iterations', iterations: 2, answer: 'Thinking, step 2' });
    expect(result!.waves.map((w) => w.calls[0].result)).toEqual(['2', '4']);
    expect(transcript.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'tool']);
    expect(progress).toMatchObject({ status: 'max_iterations', iteration: 2, maxIterations: 2, phase: 'done' });
  });

  it('task_complete: ends the run with its result, after the rest of its wave ran', async () => {
    h.fake.script({
      toolCalls: [
        { name: 'calculator', args: { expression: '6 * 7' } },
        { name: 'task_complete', args: { result: 'The answer is 42.' } },
      ],
    });
    const { handle, result } = await h.run({ goal: 'Compute 6 * 7 and finish' });
    await recordHistory('task-complete', handle);

    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', answer: 'The answer is 42.', iterations: 1 });
    expect(result!.waves[0].calls.map((c) => [c.tool, c.result])).toEqual([
      ['calculator', '42'],
      ['task_complete', 'The answer is 42.'],
    ]);
  });

  it('model 500 then success: the model activity is retried and the run completes', async () => {
    h.fake.script({ status: 500, message: 'upstream exploded' }, { content: 'Hello after a retry.' });
    const { handle, result } = await h.run({ goal: 'Say hello' });
    await recordHistory('model-retry', handle);

    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', answer: 'Hello after a retry.', iterations: 1 });
    const model = activities(await handle.fetchHistory()).filter((a) => a.type === 'callModel');
    expect(model.map((a) => a.attempts)).toEqual([2]);
  });

  it('model 429 with retry-after: the call is retried after the delay the endpoint asked for', async () => {
    h.fake.script(
      { status: 429, message: 'slow down', headers: { 'retry-after': '2' } },
      { content: 'Hello, patiently.' },
    );
    const { handle, result } = await h.run({ goal: 'Say hello' });

    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', answer: 'Hello, patiently.' });
    const model = activities(await handle.fetchHistory()).filter((a) => a.type === 'callModel');
    expect(model.map((a) => a.attempts)).toEqual([2]);
    // The default first retry would come after 1 s; the endpoint asked for 2 s, and the failure the
    // history records for the first attempt tells Temporal to wait that long.
    const started = (await handle.fetchHistory()).events!.filter(
      (e) => e.activityTaskStartedEventAttributes?.attempt === 2,
    );
    const retried = started.map((e) => e.activityTaskStartedEventAttributes!.lastFailure?.applicationFailureInfo);
    expect(retried).toHaveLength(1);
    expect(retried[0]).toMatchObject({ type: 'ModelRateLimit' });
    expect(Number(retried[0]?.nextRetryDelay?.seconds)).toBe(2);
  });

  it('model 401: the run fails at once with ModelAuthentication and says what to check', async () => {
    h.fake.script({ status: 401, message: 'Incorrect API key provided' });
    const { handle, error } = await h.run({ goal: 'Say hello' });
    await recordHistory('model-401', handle);

    h.fake.assertDone();
    expect(error).toBeInstanceOf(WorkflowFailedError);
    const cause = (error as WorkflowFailedError).cause as ApplicationFailure;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect(cause.type).toBe('ModelAuthentication');
    expect(cause.message).toMatch(/401.*OPENAI_API_KEY/);
    expect(h.fake.requests).toHaveLength(1);
  });

  it.each([
    ['an empty goal', { goal: '   ' }, /goal/],
    ['a goal larger than a payload should be', { goal: 'x'.repeat(150_000) }, /goal is longer than 100,000 characters/],
    ['a missing goal', { agent: 'default' }, /goal/],
    ['an unknown field', { goal: 'x', maxIteration: 3 }, /maxIteration/],
    ['a negative limit', { goal: 'x', maxIterations: -1 }, /maxIterations/],
    ['not an object', 'find bob', /input/],
    ['an unknown agent', { goal: 'x', agent: 'nobody' }, /Unknown agent "nobody"/],
    ['an unknown tool', { goal: 'x', tools: ['search_users', 'rm_rf'] }, /Unknown tool "rm_rf"/],
  ])(
    'invalid input (%s) fails the run with a non-retryable InvalidInput before any model call',
    async (_name, input, message) => {
      h.fake.script();
      const { error } = await h.run(input);

      expect(error).toBeInstanceOf(WorkflowFailedError);
      const cause = (error as WorkflowFailedError).cause as ApplicationFailure;
      expect(cause.type).toBe('InvalidInput');
      expect(cause.nonRetryable).toBe(true);
      expect(cause.message).toMatch(message);
      expect(h.fake.requests).toHaveLength(0);
    },
  );

  it("a wave shows each call as it settles: the status query has the fast call's result while the slow one still runs", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const slowLookup = defineTool({
      name: 'slow_lookup',
      description: 'Looks a key up, slowly.',
      parameters: z.object({ key: z.string() }),
      execute: async ({ key }) => {
        await held;
        return `value of ${key}`;
      },
    });
    h.fake.script(
      {
        toolCalls: [
          { name: 'slow_lookup', args: { key: 'k' }, id: 'call_slow' },
          { name: 'calculator', args: { expression: '6*7' }, id: 'call_fast' },
        ],
      },
      { content: '42, and the value of k.' },
    );

    const { result, progress } = await h.run(
      { goal: 'Compute 6*7 and look k up' },
      {
        extraTools: [slowLookup],
        during: async (handle) => {
          const running = await waitForProgress(h.client, handle, (p) => (p.settling?.calls.length ?? 0) > 0);
          // The settled call, and the one still open.
          expect(running.settling).toEqual({
            iteration: 1,
            calls: [{ id: 'call_fast', tool: 'calculator', args: { expression: '6*7' }, ok: true, result: '42' }],
            open: [{ id: 'call_slow', tool: 'slow_lookup' }],
          });
          expect(running.waves).toEqual([]);
          release();
        },
      },
    );

    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', answer: '42, and the value of k.' });
    // The wave keeps the model's order; once it ended, nothing is settling.
    expect(result!.waves[0].calls.map((c) => [c.id, c.result])).toEqual([
      ['call_slow', 'value of k'],
      ['call_fast', '42'],
    ]);
    expect(progress.settling).toBeUndefined();
  });

  it('a tool result is recorded once, in the tool activity: the next model input names it, and the model still reads it whole', async () => {
    const report = `${'quarterly figures, '.repeat(250)}end`;
    const fetchReport = defineTool({
      name: 'fetch_report',
      description: 'The quarterly report.',
      parameters: z.object({}),
      execute: () => report,
    });
    h.fake.script({ toolCalls: [{ name: 'fetch_report', args: {} }] }, { content: 'Summarised.' });
    const { handle, result } = await h.run({ goal: 'Summarise the report' }, { extraTools: [fetchReport] });

    h.fake.assertDone();
    expect(result!.status).toBe('completed');
    const story = activities(await handle.fetchHistory());
    const [tool] = story.filter((a) => a.type === 'runTool');
    const model = story.filter((a) => a.type === 'callModel');
    expect(tool.result).toEqual({ content: report });
    expect(model[1].input).toMatchObject({
      transcript: { from: 3, messages: [{ role: 'tool', result: { chars: report.length, hash: textHash(report) } }] },
    });
    expect(model[1].inputBytes).toBeLessThan(1_000);
    expect(toolMessages(h.fake.requests[1])).toEqual([report]);
  });

  it('history grows linearly: the model activity input carries only what came since the previous reply', async () => {
    const big = 'x'.repeat(5_000);
    const steps = Array.from({ length: 6 }, (_, i) => ({
      content: big,
      toolCalls: [{ name: 'calculator', args: { expression: `${i} + 1` } }],
    }));
    h.fake.script(...steps, { content: 'done' });
    const { handle, result } = await h.run({ goal: 'Think out loud', maxIterations: 10 });

    h.fake.assertDone();
    expect(result!.status).toBe('completed');
    const model = activities(await handle.fetchHistory()).filter((a) => a.type === 'callModel');
    expect(model).toHaveLength(7);
    // Every model input is a small reference plus what came since the previous reply (here one
    // short tool result), whatever the transcript has grown to (35 KB here).
    const sizes = model.slice(1).map((a) => a.inputBytes);
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThan(10);
    expect(Math.max(...sizes, model[0].inputBytes)).toBeLessThan(1_000);
    // The tool result itself is in the tool's completion; the model input names it.
    expect((model[3].input as { transcript: { messages: unknown[] } }).transcript.messages).toEqual([
      { role: 'tool', tool_call_id: expect.any(String), result: { chars: 1, hash: textHash('3') } },
    ]);
    // And the model still saw the whole conversation, in order.
    expect(h.fake.requests[6].messages).toHaveLength(2 + 6 * 2);
    expect(h.fake.requests[6].messages.filter((m) => m.role === 'tool').map((m) => m.content)).toEqual([
      '1',
      '2',
      '3',
      '4',
      '5',
      '6',
    ]);
  });
});

function nextDay(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}
