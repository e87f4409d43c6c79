import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { toolMessages } from '../support/fake-model';
import { Harness } from '../support/harness';
import { activities } from '../support/history';

/**
 * Model faults, through the fake model server: each one is retried, fed back to the model, or ends
 * the run with a typed reason (docs/reliability.md, "Model faults", lists which and why).
 */
const h = new Harness();
beforeAll(() => h.start());
afterAll(() => h.stop());

/** The failure type of a failed run. */
function failureType(error: unknown): string | undefined {
  expect(error).toBeInstanceOf(WorkflowFailedError);
  const cause = (error as WorkflowFailedError).cause;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  return (cause as ApplicationFailure).type ?? undefined;
}

/** How many attempts the model activities of a run took, in order. */
async function modelAttempts(handle: WorkflowHandle): Promise<number[]> {
  return activities(await handle.fetchHistory()).filter((a) => a.type === 'callModel').map((a) => a.attempts);
}

describe('model faults', () => {
  it.each([502, 503])('model %i: the call is retried and the run completes', async (status) => {
    h.fake.script({ status }, { content: 'Recovered.' });
    const { handle, result } = await h.run({ goal: `Survive a ${status}` });
    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', answer: 'Recovered.' });
    expect(await modelAttempts(handle)).toEqual([2]);
  });

  it('dropped connection: the endpoint closes the socket without answering; the call is retried', async () => {
    h.fake.script({ drop: true }, { content: 'Back again.' });
    const { handle, result } = await h.run({ goal: 'Survive a dropped connection' });
    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', answer: 'Back again.' });
    expect(await modelAttempts(handle)).toEqual([2]);
  });

  it('hang: a model that does not answer in time is cut off (ModelTimeout) and the call retried', async () => {
    h.fake.script({ content: 'too late', delayMs: 5_000 }, { content: 'On time.' });
    const started = Date.now();
    const { handle, result } = await h.run({ goal: 'Survive a hang' }, { modelTimeoutMs: 1_000 });
    expect(result).toMatchObject({ status: 'completed', answer: 'On time.' });
    expect(await modelAttempts(handle)).toEqual([2]);
    expect(Date.now() - started).toBeLessThan(5_000 + 3_000);
  });

  it('malformed completion body: a 200 that is not JSON is retried like a server error', async () => {
    h.fake.script({ rawBody: '{"choices": [' }, { content: 'Parsed.' });
    const { handle, result } = await h.run({ goal: 'Survive a broken body' });
    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', answer: 'Parsed.' });
    expect(await modelAttempts(handle)).toEqual([2]);
  });

  it('malformed tool arguments and a hallucinated tool: both go back to the model as errors, nothing runs', async () => {
    h.fake.script(
      { toolCalls: [{ name: 'get_user', args: '{"id": 2' }, { name: 'delete_everything', args: {} }] },
      (request) => {
        const [badJson, unknown] = toolMessages(request);
        expect(badJson).toMatch(/^Error: .*not valid JSON/);
        expect(unknown).toMatch(/^Error: Unknown tool "delete_everything"/);
        return { content: 'I corrected myself.' };
      },
    );
    const { handle, result } = await h.run({ goal: 'Make mistakes' });
    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', answer: 'I corrected myself.' });
    expect(activities(await handle.fetchHistory()).filter((a) => a.type === 'runTool')).toEqual([]);
  });

  it('empty reply: neither text nor tool calls is retried (ModelEmptyReply) and the run completes', async () => {
    h.fake.script({ content: null }, { content: '   ' }, { content: 'Finally something.' });
    const { handle, result } = await h.run({ goal: 'Say something' });
    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', answer: 'Finally something.' });
    expect(await modelAttempts(handle)).toEqual([3]);
  });

  it('finish_reason length: a cut-off answer ends the run with ModelOutputTruncated, not a half answer', async () => {
    h.fake.script({ content: 'The answer is forty', finishReason: 'length' });
    const { handle, error } = await h.run({ goal: 'Answer at length' });
    h.fake.assertDone();
    expect(failureType(error)).toBe('ModelOutputTruncated');
    expect(await modelAttempts(handle)).toEqual([1]);
  });

  it('finish_reason length with tool calls: the cut-off arguments go back to the model as an error', async () => {
    h.fake.script(
      { toolCalls: [{ name: 'get_user', args: '{"id": ' }], finishReason: 'length' },
      (request) => {
        expect(toolMessages(request)[0]).toMatch(/^Error: .*not valid JSON/);
        return { content: 'Shorter this time.' };
      },
    );
    const { result } = await h.run({ goal: 'Call a tool at length' });
    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', answer: 'Shorter this time.' });
  });

  it('finish_reason content_filter: the run ends at once with ModelContentFiltered', async () => {
    h.fake.script({ content: '', finishReason: 'content_filter' });
    const { handle, error } = await h.run({ goal: 'Something the filter refuses' });
    h.fake.assertDone();
    expect(failureType(error)).toBe('ModelContentFiltered');
    expect(await modelAttempts(handle)).toEqual([1]);
  });

  it('text and tool calls in one reply: the calls run as a wave and the text is kept', async () => {
    h.fake.script(
      { content: 'Let me look Bob up first.', toolCalls: [{ name: 'search_users', args: { name: 'Bob' } }] },
      { content: 'Bob is user 2.' },
    );
    const { result, transcript } = await h.run({ goal: 'Who is Bob?' });
    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', answer: 'Bob is user 2.' });
    expect(result!.waves[0].calls[0]).toMatchObject({ tool: 'search_users', ok: true });
    expect(transcript.find((m) => m.role === 'assistant')).toMatchObject({ content: 'Let me look Bob up first.' });
  });
});
