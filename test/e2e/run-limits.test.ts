import { randomUUID } from 'node:crypto';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { answerUpdate } from '../../src/contract/messages';
import { defineTool } from '../../src/tools/define';
import type { ChatRequest } from '../support/fake-model';
import { Harness, waitForProgress } from '../support/harness';
import { recordHistory } from '../support/history';
import { eventually } from '../support/wait';

const EventType = temporal.api.enums.v1.EventType;

const h = new Harness();
beforeAll(() => h.start());
afterAll(() => h.stop());

const calc = (expression: string, content?: string) => ({
  content,
  toolCalls: [{ name: 'calculator', args: { expression } }],
});

describe('agentLoop: people and limits', () => {
  it('ask_question: the run waits for input, a bad or early answer is refused, the answer reaches the model', async () => {
    h.fake.script({ toolCalls: [{ name: 'ask_question', args: { question: 'Which Bob do you mean?' } }] }, (req) => ({
      content: `You said: ${req.messages[req.messages.length - 1].content}`,
    }));
    let refusedEarly: unknown;
    let refusedEmpty: unknown;
    const { handle, result } = await h.run(
      { goal: 'Update Bob' },
      {
        during: async (handle) => {
          refusedEarly = await handle.executeUpdate(answerUpdate, { args: ['too soon'] }).catch((err) => err);
          const waiting = await waitForProgress(h.client, handle, (p) => p.status === 'waiting_for_input');
          expect(waiting.pendingQuestions).toEqual([
            { callId: expect.any(String), question: 'Which Bob do you mean?', since: expect.any(String) },
          ]);
          refusedEmpty = await handle.executeUpdate(answerUpdate, { args: ['   '] }).catch((err) => err);
          const answered = await handle.executeUpdate(answerUpdate, { args: ['Bob Martin, the one at Initech'] });
          expect(answered.question).toBe('Which Bob do you mean?');
        },
      },
    );
    await recordHistory('ask-question', handle);

    h.fake.assertDone();
    // Sent before the model asked anything: refused, and not kept for later.
    expect(refusedEarly).toBeInstanceOf(WorkflowUpdateFailedError);
    expect((refusedEarly as WorkflowUpdateFailedError).cause?.message).toBe('This run is not waiting for an answer.');
    expect(refusedEmpty).toBeInstanceOf(WorkflowUpdateFailedError);
    expect((refusedEmpty as WorkflowUpdateFailedError).cause?.message).toBe('The answer must be a non-empty string.');
    expect(result).toMatchObject({ status: 'completed', answer: 'You said: Bob Martin, the one at Initech' });
    expect(result!.waves[0].calls[0]).toMatchObject({
      tool: 'ask_question',
      ok: true,
      result: 'Bob Martin, the one at Initech',
    });
  });

  it('ask_question: with an answer timeout the model hears that nobody answered', async () => {
    h.fake.script(
      { toolCalls: [{ name: 'ask_question', args: { question: 'Anyone there?' } }] },
      { content: 'I will go ahead without an answer.' },
    );
    const { result } = await h.run({ goal: 'Ask and go on', answerTimeoutSeconds: 1 });

    h.fake.assertDone();
    expect(result!.waves[0].calls[0].result).toBe('Nobody answered within 1 seconds.');
    expect(result!.status).toBe('completed');
  });

  it('maxTokens: before the call that would exceed it, the model is asked once for a final answer (budget_exhausted)', async () => {
    // Every fake call uses 110 tokens: after two calls (220), a third would pass 300.
    h.fake.script(calc('1+1', 'one'), calc('2+2', 'two'), (req) => {
      expect(req.tools).toBeUndefined();
      expect(req.messages[req.messages.length - 1].content).toMatch(
        /^Stop here: the token budget \(300\) would be exceeded/,
      );
      return { content: 'Partial answer: 2 and 4.' };
    });
    const { handle, result } = await h.run({ goal: 'Add things', maxTokens: 300 });
    await recordHistory('budget-exhausted', handle);

    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'budget_exhausted', answer: 'Partial answer: 2 and 4.', iterations: 2 });
    expect(result!.usage.totalTokens).toBe(330);
  });

  it('maxCostUsd: priced by the model, the run stops before spending more', async () => {
    // gpt-4o: 100 prompt tokens at $2.50/M + 10 completion tokens at $10/M = $0.00035 a call.
    h.fake.script(calc('1+1'), { content: 'Stopped for money.' });
    const { result } = await h.run({ goal: 'Add things', model: 'gpt-4o', maxCostUsd: 0.0005 });

    h.fake.assertDone();
    expect(h.fake.requests[0].model).toBe('gpt-4o');
    expect(h.fake.requests[1].messages.at(-1)!.content).toMatch(
      /^Stop here: the cost budget \(\$0\.0005\) would be exceeded/,
    );
    expect(result).toMatchObject({ status: 'budget_exhausted', answer: 'Stopped for money.', iterations: 1 });
  });

  it('circuit breaker: the same tool failing the same way three times in a row ends the run with circuit_open', async () => {
    const bad = { toolCalls: [{ name: 'get_user', args: { id: 4242 } }] };
    h.fake.script(calc('1+1'), bad, bad, bad);
    const { handle, result } = await h.run({ goal: 'Find user 4242' });
    await recordHistory('circuit-open', handle);

    h.fake.assertDone();
    expect(result!.status).toBe('circuit_open');
    expect(result!.answer).toMatch(/^Circuit open: get_user failed 3 times in a row: No user with id 4242/);
    expect(result!.iterations).toBe(4);
  });

  it('circuit breaker: the same call with the same result three times in a row gets a note, a fourth ends the run', async () => {
    const same = calc('17*23');
    h.fake.script(same, same, same, same);
    const { result, transcript } = await h.run({ goal: 'What is 17*23?' });

    h.fake.assertDone();
    expect(result!.status).toBe('circuit_open');
    expect(result!.answer).toBe(
      'Circuit open: calculator was called 4 times in a row with the same arguments and gave the same result each time',
    );
    expect(result!.waves.map((wave) => wave.calls[0].result)).toEqual(['391', '391', '391', '391']);
    // The note came after the third wave's result, before the fourth call, and the model saw it.
    const note = transcript.findIndex(
      (m) =>
        m.role === 'user' &&
        String(m.content).startsWith('You have called calculator with the same arguments 3 times in a row'),
    );
    expect(transcript[note - 1].role).toBe('tool');
    expect(h.fake.requests[3].messages.at(-1)!.content).toBe(transcript[note].content);
    expect(h.fake.requests[2].messages.some((m) => String(m.content).startsWith('You have called'))).toBe(false);
  });

  it('circuit breaker: a success resets the count', async () => {
    const bad = { toolCalls: [{ name: 'get_user', args: { id: 4242 } }] };
    h.fake.script(bad, bad, { toolCalls: [{ name: 'get_user', args: { id: 1 } }] }, bad, bad, {
      content: 'Done trying.',
    });
    const { result } = await h.run({ goal: 'Find users' });

    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', answer: 'Done trying.' });
  });

  it('iteration warnings: the last iterations end with a note, and every call starts with the whole prompt of the one before', async () => {
    h.fake.script(calc('1'), calc('2'), calc('3'), calc('4'), calc('5'));
    const { result, transcript } = await h.run({ goal: 'Count', maxIterations: 5 });

    h.fake.assertDone();
    expect(result!.status).toBe('max_iterations');
    const last = (r: ChatRequest) => r.messages.at(-1)!;
    const notes = h.fake.requests.map((r) =>
      last(r).role === 'user' && /^(Iteration|This is iteration)/.test(String(last(r).content))
        ? last(r).content
        : undefined,
    );
    expect(notes).toEqual([
      undefined,
      undefined,
      undefined,
      'Iteration 4 of 5: 1 iteration left. Wrap up soon.',
      'This is iteration 5 of 5, the last one: give your final answer now.',
    ]);
    // The note is for the call only: the transcript keeps neither it nor a changed system prompt.
    expect(transcript[0].content).not.toMatch(/Iteration/);
    expect(transcript.some((m) => String(m.content).includes('Wrap up soon'))).toBe(false);
    // Prefix-stable: each call's messages (without its note) and tools are the start of the next
    // call's, byte for byte, so an endpoint's prompt cache keeps what it read.
    for (const [i, request] of h.fake.requests.slice(0, -1).entries()) {
      const next = h.fake.requests[i + 1];
      const sent = notes[i] === undefined ? request.messages : request.messages.slice(0, -1);
      expect(JSON.stringify(next.messages.slice(0, sent.length))).toBe(JSON.stringify(sent));
      expect(JSON.stringify(next.tools)).toBe(JSON.stringify(request.tools));
    }
  });

  it('deadline: shortly before the execution timeout the run wraps up with what it has', async () => {
    // An 8 s execution timeout: the soft deadline is 5 s before it, a durable timer. The second model
    // call answers only once that timer has fired (as the history shows), so the run passes it mid-call.
    const workflowId = `deadline-${randomUUID()}`;
    const deadlinePassed = () =>
      eventually(
        () => h.client.workflow.getHandle(workflowId).fetchHistory(),
        (history) => (history.events ?? []).some((e) => e.eventType === EventType.EVENT_TYPE_TIMER_FIRED),
        { problem: 'The deadline timer never fired.' },
      );
    h.fake.script(calc('1+1', 'thinking slowly'), async () => (await deadlinePassed(), calc('2+2', 'still slow')), {
      content: 'Out of time: 2 and 4.',
    });
    const { result, handle } = await h.run({ goal: 'Add slowly' }, { workflowId, timeout: '8 seconds' });
    await recordHistory('deadline', handle);

    h.fake.assertDone();
    expect(h.fake.requests[2].messages.at(-1)!.content).toMatch(/^Stop here: the time limit of this run is close/);
    expect(result).toMatchObject({ status: 'deadline', answer: 'Out of time: 2 and 4.', iterations: 2 });
    // The deadline is a durable timer: its firing is in the history, before the wrap-up's model call,
    // so a worker that replays the run decides as the first one did.
    const events = (await handle.fetchHistory()).events ?? [];
    const fired = events.findIndex((e) => e.eventType === EventType.EVENT_TYPE_TIMER_FIRED);
    const modelCalls = events.flatMap((e, i) =>
      e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel' ? [i] : [],
    );
    expect(fired).toBeGreaterThan(modelCalls[1]);
    expect(fired).toBeLessThan(modelCalls[2]);
  });

  it("timeoutSeconds: an agent's own time limit wraps the run up with what it has; the input overrides it", async () => {
    const patient = {
      name: 'patient',
      system: 'You add numbers.',
      tools: ['calculator'],
      timeoutSeconds: 60,
    };
    const hasty = { ...patient, name: 'hasty', timeoutSeconds: 1 };
    // The first model call alone takes longer than the hasty agent's second.
    h.fake.script({ ...calc('1+1', 'thinking slowly'), delayMs: 1_500 }, { content: 'Out of time: 2.' });
    const { result } = await h.run({ goal: 'Add slowly', agent: 'hasty' }, { agents: [patient, hasty] });

    h.fake.assertDone();
    expect(h.fake.requests[1].messages.at(-1)!.content).toMatch(/^Stop here: the time limit of this run is close/);
    expect(result).toMatchObject({ status: 'deadline', answer: 'Out of time: 2.', iterations: 1 });

    // The same agent with a longer limit in the input: the run finishes on its own.
    h.fake.script({ ...calc('1+1'), delayMs: 1_500 }, { content: '2.' });
    const again = await h.run({ goal: 'Add slowly', agent: 'hasty', timeoutSeconds: 60 }, { agents: [patient, hasty] });
    h.fake.assertDone();
    expect(again.result).toMatchObject({ status: 'completed', answer: '2.', iterations: 2 });
  });

  it('cancel: a run cancelled during a slow model call ends with status cancelled and keeps its transcript', async () => {
    h.fake.script(calc('6*7', 'first'), { content: 'never seen', delayMs: 20_000 });
    const { result, transcript } = await h.run(
      { goal: 'Compute, slowly' },
      {
        during: async (handle) => {
          await waitForProgress(h.client, handle, (p) => p.iteration === 2);
          // The second model call is in flight.
          await eventually(
            () => h.fake.requests.length,
            (n) => n === 2,
          );
          await handle.cancel();
        },
      },
    );

    expect(result).toMatchObject({ status: 'cancelled', answer: 'first', iterations: 2 });
    expect(result!.waves[0].calls[0].result).toBe('42');
    expect(transcript.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
  });

  it('cancel: a run cancelled during a slow tool ends cancelled; the tool sees its AbortSignal fire', async () => {
    const seen: string[] = [];
    const slowReport = defineTool({
      name: 'slow_report',
      description: 'Builds a report; takes minutes.',
      parameters: z.object({}),
      execute: (_args, { signal }) =>
        new Promise((_resolve, reject) => {
          seen.push('started');
          signal.addEventListener('abort', () => {
            seen.push('aborted');
            reject(new Error('stopped'));
          });
        }),
    });
    h.fake.script({ content: 'Building the report.', toolCalls: [{ name: 'slow_report', args: {} }] });
    const { result, transcript } = await h.run(
      { goal: 'Build the report' },
      {
        extraTools: [slowReport],
        during: async (handle) => {
          await eventually(
            () => seen.length,
            (n) => n > 0,
          );
          await handle.cancel();
          // Cancellation reaches a running activity with its next heartbeat (a third of its heartbeat timeout).
          await eventually(
            () => seen,
            (s) => s.includes('aborted'),
          );
        },
      },
    );

    expect(seen).toEqual(['started', 'aborted']);
    expect(result).toMatchObject({ status: 'cancelled', answer: 'Building the report.', iterations: 1 });
    expect(transcript.map((m) => m.role)).toEqual(['system', 'user', 'assistant']);
  });
});
