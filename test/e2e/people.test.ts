import { WorkflowUpdateFailedError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WaveloopClient, type AgentLoopResult, type RunEvent } from '../../src';
import { answerUpdate, approveUpdate, denyUpdate, endUpdate, sendUpdate } from '../../src/contract/messages';
import { toolMessages } from '../support/fake-model';
import { Harness, waitForProgress } from '../support/harness';
import { activities, localActivities, recordHistory, toolCallSummaries } from '../support/history';
import { eventually, gate } from '../support/wait';

const h = new Harness();
beforeAll(() => h.start());
afterAll(() => h.stop());

const refusal = async (promise: Promise<unknown>) => {
  const err = await promise.catch((e) => e);
  expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
  return (err as WorkflowUpdateFailedError).cause?.message;
};

describe('agentLoop: approvals and conversations', () => {
  it('approval per call: in a wave of three, the denied call reaches the model as denied, the others run once', async () => {
    // The model's last reply waits until the test has checked that a second decision is refused.
    const checked = gate();
    h.fake.script(
      {
        toolCalls: [
          { name: 'search_users', args: { name: 'Alice' } },
          { name: 'update_user', args: { id: 1, company: 'Globex' } },
          { name: 'calculator', args: { expression: '2^10' } },
        ],
      },
      async () => (await checked.until, { content: 'Noted: the update was denied.' }),
    );
    const { handle, result } = await h.run(
      { goal: 'Find the Alices, move user 1 to Globex, and compute 2^10' },
      {
        during: async (handle) => {
          const waiting = await waitForProgress(h.client, handle, (p) => p.pendingApprovals.length > 0);
          const callId = waiting.pendingApprovals[0].callId;
          expect(await refusal(handle.executeUpdate(approveUpdate, { args: ['call_nope'] }))).toBe(
            `No call call_nope is waiting for approval (waiting: ${callId}).`,
          );
          // The other two calls of the wave (read tools: local activities) are not held back by
          // the pending approval: the history records them while it still waits.
          const tools = await eventually(
            async () => toolCallSummaries(await handle.fetchHistory()).map((summary) => summary.split('(')[0]),
            (summaries) => summaries.length >= 2,
          );
          expect(tools).toEqual(['wave 1 · search_users', 'wave 1 · calculator']);
          await handle.executeUpdate(denyUpdate, { args: [callId, 'company moves need a ticket'] });
          expect(await refusal(handle.executeUpdate(denyUpdate, { args: [callId, 'again'] }))).toMatch(
            /^No call .* is waiting for approval/,
          );
          checked.open();
        },
      },
    );
    await recordHistory('approval-denied', handle);

    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', answer: 'Noted: the update was denied.' });
    expect(toolMessages(h.fake.requests[1])[1]).toBe('Error: denied: company moves need a ticket');
    expect(result!.waves[0].calls.map((c) => c.ok)).toEqual([true, false, true]);
    const user1 = h.db.prepare('SELECT company FROM users WHERE id = 1').get() as { company: string };
    expect(user1.company).not.toBe('Globex');
    // update_user never ran; the other two ran exactly once (as local activities).
    const history = await handle.fetchHistory();
    expect(activities(history).filter((a) => a.type === 'runTool')).toEqual([]);
    const tools = localActivities(history).filter((a) => a.type === 'runTool');
    expect(tools.map((a) => [a.summary.split('(')[0], a.attempt])).toEqual([
      ['wave 1 · search_users', 1],
      ['wave 1 · calculator', 1],
    ]);
  });

  it('toolsToApprove: a run can require approval for any tool; updates of the wrong type are refused; approved calls run', async () => {
    h.fake.script({ toolCalls: [{ name: 'calculator', args: { expression: '6*7' } }] }, { content: '42' });
    const { result } = await h.run(
      { goal: 'Compute', toolsToApprove: ['calculator'] },
      {
        during: async (handle) => {
          const waiting = await waitForProgress(h.client, handle, (p) => p.status === 'waiting_for_approval');
          expect(waiting.pendingApprovals).toEqual([
            {
              callId: expect.any(String),
              tool: 'calculator',
              args: { expression: '6*7' },
              iteration: 1,
              since: expect.any(String),
              // The worker settled who decides (anyone, once) and what the person reads.
              description: expect.stringContaining('Evaluates an arithmetic expression'),
              quorum: 1,
              fourEyes: false,
              approvals: [],
            },
          ]);
          // Wrong types are refused with a clear message, and the run goes on unharmed.
          const untyped = handle as unknown as {
            executeUpdate(def: unknown, options: { args: unknown[] }): Promise<unknown>;
          };
          expect(await refusal(untyped.executeUpdate(approveUpdate, { args: [42] }))).toBe(
            'Name the tool call to decide (its call id).',
          );
          expect(
            await refusal(
              untyped.executeUpdate(denyUpdate, { args: [waiting.pendingApprovals[0].callId, { why: 'no' }] }),
            ),
          ).toBe('The reason must be a string.');
          expect(await refusal(untyped.executeUpdate(answerUpdate, { args: [{ text: 'hi' }] }))).toBe(
            'The answer must be a non-empty string.',
          );
          await handle.executeUpdate(approveUpdate, { args: [waiting.pendingApprovals[0].callId] });
        },
      },
    );
    expect(result!.waves[0].calls[0]).toMatchObject({ ok: true, result: '42' });
  });

  it("denials are a person's decision, not tool failures: three in a row do not open the circuit breaker", async () => {
    const move = (company: string) => ({ toolCalls: [{ name: 'update_user', args: { id: 1, company } }] });
    h.fake.script(move('Globex'), move('Initech'), move('Umbrella'), {
      content: 'Nobody approved a move; user 1 stays where they are.',
    });

    const { result } = await h.run(
      { goal: 'Move user 1 to another company', tools: ['update_user'], circuitBreaker: 3 },
      {
        during: async (handle) => {
          for (let i = 0; i < 3; i++) {
            const waiting = await waitForProgress(
              h.client,
              handle,
              (p) => p.pendingApprovals.length > 0 && p.iteration === i + 1,
            );
            await handle.executeUpdate(denyUpdate, {
              args: [waiting.pendingApprovals[0].callId, 'no moves this quarter'],
            });
          }
        },
      },
    );

    h.fake.assertDone();
    expect(result).toMatchObject({
      status: 'completed',
      iterations: 4,
      answer: 'Nobody approved a move; user 1 stays where they are.',
    });
    expect(result!.waves.map((w) => [w.calls[0].ok, w.calls[0].error])).toEqual(
      Array.from({ length: 3 }, () => [false, 'denied: no moves this quarter']),
    );
  });

  it('runs.follow (client API): a script sees each call as it settles and each call that waits for approval', async () => {
    h.fake.script(
      {
        toolCalls: [
          { name: 'calculator', args: { expression: '6*7' } },
          { name: 'update_user', args: { id: 1, company: 'Globex' } },
        ],
      },
      { content: 'Done.' },
    );
    const events: RunEvent[] = [];
    const calls = () => events.flatMap((event) => (event.type === 'call' ? [event.call] : []));
    const { result } = await h.run(
      { goal: 'Compute 6*7 and move user 1 to Globex', tools: ['calculator', 'update_user'] },
      {
        during: async (handle) => {
          const follow = new WaveloopClient(h.client, 'unused').runs.follow(handle.workflowId, {
            onEvent: (event) => void events.push(event),
          });
          // The calculator's result comes out while update_user still waits for its approval (given below).
          await eventually(
            async () => calls().some((call) => call.tool === 'calculator' && call.result === '42'),
            Boolean,
            { attempts: 200 },
          );
          const approval = await eventually(async () => events.find((event) => event.type === 'approval'), Boolean, {
            attempts: 200,
          });
          expect(calls().map((call) => call.tool)).toEqual(['calculator']);
          await handle.executeUpdate(approveUpdate, {
            args: [approval!.type === 'approval' ? approval!.approval.callId : ''],
          });
          await follow.stop((await handle.result()) as AgentLoopResult);
        },
      },
    );

    h.fake.assertDone();
    expect(result!.status).toBe('completed');
    expect(events.find((event) => event.type === 'approval')).toMatchObject({
      approval: { tool: 'update_user', args: { id: 1, company: 'Globex' }, iteration: 1 },
    });
    expect(calls().map((call) => call.tool)).toEqual(['calculator', 'update_user']);
    expect(events.filter((event) => event.type === 'ended')).toEqual([{ type: 'ended', result }]);
  });

  it('toolsToApprove: naming a tool the run does not have is InvalidInput', async () => {
    h.fake.script();
    const { error } = await h.run({ goal: 'x', tools: ['calculator'], toolsToApprove: ['update_user'] });
    expect((error as any).cause.type).toBe('InvalidInput');
    expect((error as any).cause.message).toMatch(/toolsToApprove names tools the run does not have: "update_user"/);
  });

  it('conversation: true: each answer is a turn; the next message continues the run with the whole conversation; end ends it', async () => {
    h.fake.script(
      { toolCalls: [{ name: 'search_users', args: { name: 'Bob' } }] },
      { content: 'Bob Martin works at Acme.' },
      (req) => {
        // The follow-up sees the first question, its tool call and result, and the first answer.
        expect(req.messages.slice(1).map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
        expect(req.messages[1].content).toBe('Where does Bob work?');
        expect(req.messages.at(-2)!.content).toBe('Bob Martin works at Acme.');
        expect(req.messages.at(-1)).toEqual({ role: 'user', content: 'And since when?' });
        return { content: 'Since 2019.' };
      },
    );
    const { handle, result } = await h.run(
      { goal: 'Where does Bob work?', conversation: true, tools: ['search_users'] },
      {
        during: async (handle) => {
          const first = await waitForProgress(h.client, handle, (p) => p.status === 'waiting_for_message');
          expect(first.conversation).toEqual({ message: 'Bob Martin works at Acme.', since: expect.any(String) });
          await handle.executeUpdate(sendUpdate, { args: ['And since when?'] });
          const second = await waitForProgress(
            h.client,
            handle,
            (p) => p.status === 'waiting_for_message' && p.conversation?.message === 'Since 2019.',
          );
          expect(second.iteration).toBe(3);
          await handle.executeUpdate(endUpdate, { args: [] });
        },
      },
    );
    await recordHistory('conversation-mode', handle);

    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', answer: 'Since 2019.', iterations: 3 });
  });

  it('converse: a conversation with two follow-ups is one durable run, ended by the person', async () => {
    h.fake.script(
      { toolCalls: [{ name: 'converse', args: { message: 'Hi! What shall I look up?' } }] },
      (req) => {
        expect(req.messages.at(-1)).toEqual({ role: 'user', content: 'When is Easter 2027?' });
        return { toolCalls: [{ name: 'resolve_holiday', args: { name: 'Easter', year: 2027 } }] };
      },
      (req) => ({
        toolCalls: [
          { name: 'converse', args: { message: `Easter 2027 is on ${JSON.parse(toolMessages(req).at(-1)!).start}.` } },
        ],
      }),
      (req) => {
        expect(req.messages.at(-1)).toEqual({ role: 'user', content: 'And 6*7?' });
        return { toolCalls: [{ name: 'calculator', args: { expression: '6*7' } }] };
      },
      { toolCalls: [{ name: 'converse', args: { message: '6*7 is 42.' } }] },
    );
    const said: string[] = [];
    const { handle, result, progress } = await h.run(
      { goal: 'Chat with me', maxIterations: 3 },
      {
        during: async (handle) => {
          expect(await refusal(handle.executeUpdate(sendUpdate, { args: ['too early'] }))).toBe(
            'This run is not waiting for a message.',
          );
          let p = await waitForProgress(h.client, handle, (p) => p.status === 'waiting_for_message');
          said.push(p.conversation!.message);
          expect(await refusal(handle.executeUpdate(sendUpdate, { args: [''] }))).toBe(
            'The message must be a non-empty string.',
          );
          await handle.executeUpdate(sendUpdate, { args: ['When is Easter 2027?'] });
          p = await waitForProgress(
            h.client,
            handle,
            (p) => p.status === 'waiting_for_message' && p.conversation!.message !== said[0],
          );
          said.push(p.conversation!.message);
          await handle.executeUpdate(sendUpdate, { args: ['And 6*7?'] });
          p = await waitForProgress(
            h.client,
            handle,
            (p) => p.status === 'waiting_for_message' && p.conversation!.message === '6*7 is 42.',
          );
          said.push(p.conversation!.message);
          await handle.executeUpdate(endUpdate, { args: [] });
        },
      },
    );
    await recordHistory('conversation', handle);

    h.fake.assertDone();
    expect(said).toEqual(['Hi! What shall I look up?', 'Easter 2027 is on 2027-03-28.', '6*7 is 42.']);
    // Five model calls over three turns, though each turn may have at most 3 iterations.
    expect(result).toMatchObject({ status: 'completed', answer: '6*7 is 42.', iterations: 5 });
    expect(progress.status).toBe('completed');
  });

  it('converse: the conversation ends by itself after the idle timeout', async () => {
    h.fake.script({ toolCalls: [{ name: 'converse', args: { message: 'Anything else?' } }] });
    const { result } = await h.run({ goal: 'Chat', idleTimeoutSeconds: 1 });

    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', answer: 'Anything else?', iterations: 1 });
  });
});
