import { randomUUID } from 'node:crypto';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities, Registry } from '../../src/activities';
import type { RunEvent } from '../../src/client/follow';
import { WaveloopClient } from '../../src/client/waveloop-client';
import type { ChatMessage } from '../../src/contract/agent-loop';
import { FakeModel, toolMessages, type ScriptedReply } from '../support/fake-model';
import { Harness } from '../support/harness';
import { activities } from '../support/history';
import { freePort } from '../support/ports';
import { gate } from '../support/wait';

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
  return activities(await handle.fetchHistory())
    .filter((a) => a.type === 'callModel')
    .map((a) => a.attempts);
}

describe('model faults', () => {
  it('model 502: the call is retried and the run completes', async () => {
    h.fake.script({ status: 502 }, { content: 'Recovered.' });
    const { handle, result } = await h.run({ goal: 'Survive a 502' });
    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', answer: 'Recovered.' });
    expect(await modelAttempts(handle)).toEqual([2]);
  });

  it('hang: a model that does not answer in time is cut off (ModelTimeout) and the call retried', async () => {
    // The worker's model client gives up after 1 s; the first reply would come after 5 s.
    h.fake.script({ content: 'too late', delayMs: 5_000 }, { content: 'On time.' });
    const { handle, result } = await h.run({ goal: 'Survive a hang' }, { modelTimeoutMs: 1_000 });
    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', answer: 'On time.' });
    // The history records the second attempt, and why the first one failed: cut off, not answered late.
    const history = await handle.fetchHistory();
    const started = history.events!.filter((e) => e.activityTaskStartedEventAttributes);
    expect(started.map((e) => e.activityTaskStartedEventAttributes!.attempt)).toEqual([2]);
    expect(started[0].activityTaskStartedEventAttributes!.lastFailure?.applicationFailureInfo?.type).toBe(
      'ModelTimeout',
    );
    expect(await modelAttempts(handle)).toEqual([2]);
  });

  it("modelTimeoutSeconds: an attempt past the run's model-call timeout is cut and tried again, and a follower is told why", async () => {
    // The worker's model client would wait minutes; the run's own timeout (2 s an attempt) cuts the
    // first, which answers only once the second has asked. The second answers as soon as the
    // follower has reported the retry, so the follower sees it however slow the machine is.
    const secondAsked = gate();
    const retryReported = gate();
    h.fake.script(
      async () => {
        await secondAsked.until;
        return { content: 'too late' };
      },
      async () => {
        secondAsked.open();
        await retryReported.until;
        return { content: 'On time.' };
      },
    );
    const workflowId = `model-timeout-${randomUUID()}`;
    const events: RunEvent[] = [];
    const following = new WaveloopClient(h.client, 'unused').runs.follow(workflowId, {
      onEvent: (event) => {
        events.push(event);
        if (event.type === 'retry') retryReported.open();
      },
    });
    const { handle, result } = await h.run(
      { goal: 'Survive a slow model', modelTimeoutSeconds: 2, modelAttempts: 3 },
      { workflowId },
    );
    await following.stop(result);

    expect(result).toMatchObject({ status: 'completed', answer: 'On time.' });
    // Whichever notices first, Temporal's timeout or the model client given the same time, says so.
    expect(events).toContainEqual({
      type: 'retry',
      iteration: 1,
      attempt: 2,
      maximumAttempts: 3,
      failure: expect.stringMatching(/^(timed out \(start-to-close\)|.*did not answer in time.*)$/),
    });
    const history = await handle.fetchHistory();
    const scheduled = history.events!.find(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel',
    )!.activityTaskScheduledEventAttributes!;
    expect(Number(scheduled.startToCloseTimeout?.seconds)).toBe(2);
    expect(scheduled.retryPolicy?.maximumAttempts).toBe(3);
    expect(await modelAttempts(handle)).toEqual([2]);
  });

  it('malformed tool arguments and a hallucinated tool: both go back to the model as errors, nothing runs', async () => {
    h.fake.script(
      {
        toolCalls: [
          { name: 'get_user', args: '{"id": 2' },
          { name: 'delete_everything', args: {}, unoffered: true },
        ],
      },
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

  it('finish_reason length: a cut-off answer ends the run with ModelOutputTruncated, not a half answer', async () => {
    h.fake.script({ content: 'The answer is forty', finishReason: 'length' });
    const { handle, error } = await h.run({ goal: 'Answer at length' });
    h.fake.assertDone();
    // The output limit the reply was cut at is the run's (4,096 tokens unless the run or its agent says).
    expect(h.fake.requests[0].max_tokens).toBe(4_096);
    expect(failureType(error)).toBe('ModelOutputTruncated');
    expect(await modelAttempts(handle)).toEqual([1]);
  });

  it('finish_reason length with tool calls: the cut-off arguments go back to the model as an error', async () => {
    h.fake.script({ toolCalls: [{ name: 'get_user', args: '{"id": ' }], finishReason: 'length' }, (request) => {
      expect(toolMessages(request)[0]).toMatch(/^Error: .*not valid JSON/);
      return { content: 'Shorter this time.' };
    });
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

  it("unreachable endpoint: the first failed attempt and the run's failure name the URL; the run fails ModelUnavailable when the retries run out", async () => {
    const url = `http://127.0.0.1:${await freePort()}/v1`;
    // The worker retries model calls twice, 10 ms apart (the default policy takes about 2 minutes).
    const modelRetry = { maximumAttempts: 2, initialInterval: 10 };
    const { handle, error } = await h.run({ goal: 'Reach nobody' }, { modelBaseURL: url, modelRetry });
    expect(failureType(error)).toBe('ModelUnavailable');
    const unreachable = `The model endpoint ${url} could not be reached: Connection error. (fetch failed: connect ECONNREFUSED`;
    expect((error as WorkflowFailedError).cause!.message).toContain(
      `The model call of iteration 1 kept failing: ${unreachable}`,
    );
    // The first attempt's failure (what the worker warned of) is the second attempt's last failure.
    const events = (await handle.fetchHistory()).events!;
    const second = events.find((e) => e.activityTaskStartedEventAttributes)!.activityTaskStartedEventAttributes!;
    expect(second.attempt).toBe(2);
    expect(second.lastFailure).toMatchObject({
      message: expect.stringContaining(unreachable),
      applicationFailureInfo: { type: 'ModelConnection' },
    });
    expect(await modelAttempts(handle)).toEqual([2]);
  });

  it('the model call retry policy is the one docs/reliability.md states: 8 attempts, from 1 s, doubling, at most 1 min apart', async () => {
    h.fake.script({ content: 'Hi.' });
    const { handle } = await h.run({ goal: 'Say hi' });
    const scheduled = (await handle.fetchHistory()).events!.find(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel',
    );
    const policy = scheduled!.activityTaskScheduledEventAttributes!.retryPolicy!;
    expect({
      maximumAttempts: policy.maximumAttempts,
      initialInterval: Number(policy.initialInterval!.seconds),
      backoffCoefficient: policy.backoffCoefficient,
      maximumInterval: Number(policy.maximumInterval!.seconds),
    }).toEqual({ maximumAttempts: 8, initialInterval: 1, backoffCoefficient: 2, maximumInterval: 60 });
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

/**
 * What makes a model call fail, and whether Temporal retries it, is decided by the `callModel`
 * activity: tested here in a mock activity context against the fake model. A full run adds only the
 * retry itself, which the runs above show (a 502 and a hang, each retried once).
 */
describe('callModel: faults of the endpoint', () => {
  const fake = new FakeModel();
  beforeAll(() => fake.start());
  afterAll(() => fake.stop());

  const quiet = new DefaultLogger('ERROR', () => undefined);

  const messages: ChatMessage[] = [
    { role: 'system', content: 'You help.' },
    { role: 'user', content: 'Say something' },
  ];

  /**
   * The failure of one `callModel` attempt against the fake model, whose client gives up after
   * `timeoutMs`, in an activity given `startToCloseTimeoutMs` (default: none).
   */
  async function failure(timeoutMs = 60_000, startToCloseTimeoutMs?: number): Promise<ApplicationFailure> {
    const { callModel } = createActivities({
      registry: new Registry([], []),
      openai: new OpenAI({ baseURL: fake.baseURL, apiKey: 'test-key', maxRetries: 0, timeout: timeoutMs }),
      defaults: { model: 'fake-model' },
      readTranscript: async () => messages,
    });
    const transcript = { count: messages.length, from: 0, messages };
    const input = {
      workflowId: 'faults',
      runId: randomUUID(),
      model: 'fake-model',
      tools: [],
      planner: 'native' as const,
      iteration: 1,
      transcript,
    };
    const environment = new MockActivityEnvironment(startToCloseTimeoutMs ? { startToCloseTimeoutMs } : {}, {
      logger: quiet,
    });
    const error = await environment.run(callModel, input).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(ApplicationFailure);
    return error as ApplicationFailure;
  }

  it.each([
    ['model 503', 'ModelServerError', { status: 503 }],
    ['dropped connection: the endpoint closes the socket without answering', 'ModelConnection', { drop: true }],
    ['malformed completion body: a 200 that is not JSON', 'ModelConnection', { rawBody: '{"choices": [' }],
    ['empty reply: neither text nor tool calls', 'ModelEmptyReply', { content: null }],
    ['empty reply: only blanks', 'ModelEmptyReply', { content: '   ' }],
  ] as Array<[string, string, ScriptedReply]>)('%s: a retryable %s', async (_name, type, reply) => {
    fake.script(reply);
    expect(await failure()).toMatchObject({ type, nonRetryable: false });
    fake.assertDone();
  });

  it("the model client gives up at the attempt's own timeout, however long the client itself would wait", async () => {
    fake.script({ content: 'too late', delayMs: 5_000 });
    expect(await failure(24 * 3_600_000, 300)).toMatchObject({ type: 'ModelTimeout', nonRetryable: false });
    fake.assertDone();
  });

  it('a model call tried again is logged at INFO with why the attempt before failed', async () => {
    fake.script({ content: 'Fine now.' });
    const logged: Array<{ level: string; message: string }> = [];
    const logger = new DefaultLogger('INFO', (entry) => logged.push(entry));
    const { callModel } = createActivities({
      registry: new Registry([], []),
      openai: new OpenAI({ baseURL: fake.baseURL, apiKey: 'test-key', maxRetries: 0 }),
      defaults: { model: 'fake-model' },
      readTranscript: async () => messages,
      previousFailure: async (_workflowId, _runId, activityId) =>
        activityId === 'model-1' ? 'timed out (start-to-close)' : undefined,
    });
    const transcript = { count: messages.length, from: 0, messages };
    const input = {
      workflowId: 'faults',
      runId: randomUUID(),
      model: 'fake-model',
      tools: [],
      planner: 'native' as const,
      iteration: 3,
      transcript,
    };
    const info = { attempt: 2, activityId: 'model-1', retryPolicy: { maximumAttempts: 8 } };
    await new MockActivityEnvironment(info, { logger }).run(callModel, input);
    expect(logged).toContainEqual(
      expect.objectContaining({
        level: 'INFO',
        message:
          'Model call of iteration 3 tried again (attempt 2 of 8): the attempt before timed out (start-to-close)',
      }),
    );
    fake.assertDone();
  });

  it('hang: a reply that does not come in time is a retryable ModelTimeout', async () => {
    fake.script({ content: 'too late', delayMs: 5_000 });
    expect(await failure(300)).toMatchObject({ type: 'ModelTimeout', nonRetryable: false });
    fake.assertDone();
  });

  it.each([
    ['finish_reason length', 'ModelOutputTruncated', { content: 'The answer is forty', finishReason: 'length' }],
    ['finish_reason content_filter', 'ModelContentFiltered', { content: '', finishReason: 'content_filter' }],
    ['model 401', 'ModelAuthentication', { status: 401, message: 'Incorrect API key provided' }],
  ] as Array<[string, string, ScriptedReply]>)('%s: a non-retryable %s', async (_name, type, reply) => {
    fake.script(reply);
    expect(await failure()).toMatchObject({ type, nonRetryable: true });
    fake.assertDone();
  });
});
