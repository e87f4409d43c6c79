import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResolvedRun } from '../../src/contract/activity-io';
import { Memory } from '../../src/workflows/memory';
import { Transcript } from '../../src/workflows/transcript';
import { FAKE_USAGE, type ChatRequest, type ScriptedReply } from '../support/fake-model';
import { Harness } from '../support/harness';
import { activities, recordHistory } from '../support/history';

const h = new Harness();
beforeAll(() => h.start());
afterAll(() => h.stop());

const EventType = temporal.api.enums.v1.EventType;

const isSummaryRequest = (req: ChatRequest) => String(req.messages[0].content).startsWith('You compress');
const add = (i: number, usage = FAKE_USAGE): ScriptedReply => ({
  toolCalls: [{ name: 'calculator', args: { expression: `${i} + 1` } }],
  usage,
});
/** The model's requests of the loop itself (not the summaries). */
const loopRequests = () => h.fake.requests.filter((req) => !isSummaryRequest(req));

/**
 * Seed 004's memory pruning within a run: near the model's context window the older part of the
 * transcript is summarised, keeping the system prompt, the goal and the recent turns.
 */
describe('agentLoop: memory pruning at the context window', () => {
  it('past 80 % of maxContextTokens, the older turns are summarised before the next call; the run goes on and answers', async () => {
    const near = { prompt_tokens: 1_700, completion_tokens: 10, total_tokens: 1_710 };
    h.fake.script(
      ...Array.from({ length: 6 }, (_, i) => add(i)),
      // 1,710 tokens of a 2,000-token window: the next call would not fit in 80 % of it.
      add(6, near),
      { content: 'Earlier: computed 0 + 1 = 1.' },
      { content: 'Done: 1 to 7.' },
    );

    const { handle, result, transcript } = await h.run(
      { goal: 'Add 1 to 0..6', maxContextTokens: 2_000 },
      { workflowId: 'memory-pruned' },
    );
    await recordHistory('memory-pruned', handle);

    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', answer: 'Done: 1 to 7.', iterations: 8 });
    // Every wave is still in the result; only the transcript the model sees was pruned.
    expect(result!.waves.map((w) => w.calls[0].result)).toEqual(['1', '2', '3', '4', '5', '6', '7']);
    const [summary] = h.fake.requests.filter(isSummaryRequest);
    expect(summary.messages[1].content).toContain('calculator({"expression":"0 + 1"})');
    const last = loopRequests().at(-1)!;
    expect(last.messages.slice(0, 2).map((m) => m.role)).toEqual(['system', 'user']);
    expect(last.messages[1].content).toBe('Add 1 to 0..6');
    expect(last.messages[2].content).toBe(
      'Summary of the earlier part of this run (2 messages):\nEarlier: computed 0 + 1 = 1.',
    );
    expect(last.messages).toHaveLength(3 + 12);
    // The recent turns are whole: each tool result follows the assistant message that asked for it.
    expect(last.messages.slice(3).map((m) => m.role)).toEqual(
      Array.from({ length: 6 }, () => ['assistant', 'tool']).flat(),
    );
    expect(transcript.length).toBe(3 + 12 + 1);
    // One run, no hand-over: the summary is an activity of its own in the history, and its tokens count.
    const history = await handle.fetchHistory();
    expect(history.events!.some((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW)).toBe(
      false,
    );
    expect(
      activities(history)
        .filter((a) => a.type === 'summarizeTranscript')
        .map((a) => a.summary),
    ).toEqual(['memory · summarize 2 messages']);
    expect(result!.usage.totalTokens).toBe(8 * FAKE_USAGE.total_tokens + near.total_tokens);
  });

  it('a model call refused as longer than the context window prunes the transcript once and asks again', async () => {
    h.fake.script(
      ...Array.from({ length: 7 }, (_, i) => add(i)),
      {
        status: 400,
        code: 'context_length_exceeded',
        message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
      },
      { content: 'Earlier: computed 0 + 1 = 1.' },
      { content: 'Done: 1 to 7.' },
    );

    const { handle, result } = await h.run({ goal: 'Add 1 to 0..6' }, { workflowId: 'memory-overflow' });
    await recordHistory('memory-overflow', handle);

    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', answer: 'Done: 1 to 7.', iterations: 8 });
    const [refused, retried] = loopRequests().slice(-2);
    expect(refused.messages).toHaveLength(2 + 14);
    expect(retried.messages[2].content).toMatch(/^Summary of the earlier part of this run \(2 messages\):/);
    expect(retried.messages).toHaveLength(3 + 12);
    const calls = activities(await handle.fetchHistory()).filter((a) => a.type === 'callModel');
    expect(calls.at(-2)!.failedEventId).toBeDefined();
  });

  it('when nothing can be dropped, the refusal fails the run with a typed, non-retryable ModelContextExceeded', async () => {
    h.fake.script(add(0), {
      status: 400,
      code: 'context_length_exceeded',
      message: "This model's maximum context length is 8192 tokens.",
    });

    const { error } = await h.run({ goal: 'Add 1 to 0' });

    h.fake.assertDone();
    expect(error).toBeInstanceOf(WorkflowFailedError);
    const cause = (error as WorkflowFailedError).cause as ApplicationFailure;
    expect(cause.type).toBe('ModelContextExceeded');
    expect(cause.nonRetryable).toBe(true);
    expect(cause.message).toMatch(/does not fit the model's context window/);
  });
});

describe('Memory: when the transcript is pruned (no server)', () => {
  const run = { settings: { model: 'm', maxContextTokens: 1_000, maxHistoryEvents: 2_000 } } as unknown as ResolvedRun;
  const fresh = { lastCall: undefined, handedOver: false };
  const call = (prompt: number) => ({ promptTokens: prompt, completionTokens: 50, totalTokens: prompt + 50 });

  it("nearlyFull: the latest call's tokens plus what came since (4 characters a token) past 80 % of the window", () => {
    const transcript = new Transcript([
      { role: 'system', content: 's' },
      { role: 'user', content: 'g' },
    ]);
    const memory = new Memory(transcript, run, () => undefined, fresh);
    expect(memory.nearlyFull()).toBe(false); // no call has measured the transcript yet
    memory.measured(call(700));
    expect(memory.nearlyFull()).toBe(false); // 750 + 1 token
    transcript.add({ role: 'user', content: 'x'.repeat(200) });
    expect(memory.nearlyFull()).toBe(true); // 750 + 51 tokens > 800
    const unknownWindow = { settings: { model: 'm' } } as unknown as ResolvedRun;
    expect(new Memory(transcript, unknownWindow, () => undefined, fresh).nearlyFull()).toBe(false); // window unknown
  });

  it('nearlyFull: a run handed over waits for its first call, whose usage describes the pruned transcript', () => {
    const transcript = new Transcript([{ role: 'user', content: 'x'.repeat(4_000) }]);
    const memory = new Memory(transcript, run, () => undefined, { lastCall: call(900), handedOver: true });
    expect(memory.nearlyFull()).toBe(false);
    memory.measured(call(900));
    expect(memory.nearlyFull()).toBe(true);
  });
});
