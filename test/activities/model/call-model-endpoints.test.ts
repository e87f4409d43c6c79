import { randomUUID } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger, type LogEntry } from '@temporalio/worker';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createActivities, Registry } from '../../../src/activities';
import type { ModelCallInput, ModelCallOutput } from '../../../src/contract/activity-io';
import type { ChatMessage } from '../../../src/contract/agent-loop';
import type { Assessment, ComponentOutput } from '../../../src/contract/goal-tree/pursue-goal';
import { FakeModel } from '../../support/fake-model';

/**
 * The model activities against endpoints that differ from OpenAI, in a mock activity context: what
 * one attempt sends and makes of the answer. The runs in test/e2e/model-endpoints.test.ts add the
 * workflow around them.
 */
const fake = new FakeModel();
beforeAll(() => fake.start());
afterAll(() => fake.stop());
afterEach(() => void fake.refuse([]));

const messages: ChatMessage[] = [
  { role: 'system', content: 'You help.' },
  { role: 'user', content: 'Say something' },
];

/** The activities of one worker against the fake model, and the INFO lines they logged. */
function worker() {
  const activities = createActivities({
    registry: new Registry([], []),
    openai: new OpenAI({ baseURL: fake.baseURL, apiKey: 'test-key', maxRetries: 0 }),
    defaults: { model: 'fake-model' },
    readTranscript: async () => messages,
  });
  const logged: string[] = [];
  const logger = new DefaultLogger('INFO', (entry: LogEntry) => void logged.push(entry.message));
  return { activities, logged, logger };
}

function callInput(overrides: Partial<ModelCallInput> = {}): ModelCallInput {
  const transcript = { count: messages.length, from: 0, messages };
  return {
    workflowId: 'endpoints',
    runId: randomUUID(),
    model: 'fake-model',
    tools: [],
    planner: 'native',
    iteration: 1,
    transcript,
    maxOutputTokens: 4_096,
    ...overrides,
  };
}

describe('callModel against endpoints that differ from OpenAI', () => {
  it('a first token slower than the heartbeat timeout: the call heartbeats while it waits, and completes', async () => {
    // Temporal's own heartbeat timeout is tested on a real server (test/e2e/model-endpoints.test.ts);
    // here: the activity heartbeats before the first token arrives, not only once text streams.
    fake.script({ content: 'Finally here.', stream: { firstTokenDelayMs: 1_500 } });
    const { activities, logger } = worker();
    const env = new MockActivityEnvironment({ heartbeatTimeoutMs: 400 }, { logger });
    const beats: unknown[] = [];
    env.on('heartbeat', (details: unknown) => beats.push(details));
    const output = (await env.run(activities.callModel, callInput())) as ModelCallOutput;
    expect(output.message).toEqual({ role: 'assistant', content: 'Finally here.' });
    // Beats without streamed text came first: the wait for the first token was covered.
    const firstText = beats.findIndex((details) => (details as { length?: number } | undefined)?.length);
    expect(firstText === -1 ? beats.length : firstText).toBeGreaterThanOrEqual(2);
    fake.assertDone();
  });

  it('max_tokens refused: the limit goes as max_completion_tokens at once, logged once, and stays so on this worker', async () => {
    fake.refuse(['max_tokens']).script({ content: 'One.' }, { content: 'Two.' });
    const { activities, logged, logger } = worker();
    const env = new MockActivityEnvironment({}, { logger });
    await env.run(activities.callModel, callInput());
    await env.run(activities.callModel, callInput());
    const sent = fake.requests.map((r) => ({
      max_tokens: r.max_tokens,
      max_completion_tokens: r.max_completion_tokens,
    }));
    expect(sent).toEqual([
      { max_tokens: 4_096, max_completion_tokens: undefined },
      { max_tokens: undefined, max_completion_tokens: 4_096 },
      { max_tokens: undefined, max_completion_tokens: 4_096 },
    ]);
    expect(logged.filter((line) => line.includes('does not support'))).toEqual([
      `The model endpoint ${fake.baseURL} does not support max_tokens; calls to it send max_completion_tokens instead`,
    ]);
    fake.assertDone();
  });

  it('a 400 naming no parameter the endpoint refuses stays a non-retryable ModelBadRequest, asked once', async () => {
    fake.script({ status: 400, message: 'Unsupported parameter: top_logprobs' });
    const { activities, logger } = worker();
    const error = await new MockActivityEnvironment({}, { logger })
      .run(activities.callModel, callInput())
      .catch((err: unknown) => err);
    expect(error).toMatchObject({ type: 'ModelBadRequest', nonRetryable: true });
    expect(fake.requests).toHaveLength(1);
    fake.assertDone();
  });

  it("reasoning_content and a <think> block: the thinking is the output's reasoning, never the message", async () => {
    fake.script(
      { content: 'Forty-two.', reasoning: 'Six times seven.' },
      { content: '<think>\nSix times seven, again.\n</think>\n\nForty-two again.', stream: { whole: true } },
    );
    const { activities, logger } = worker();
    const env = new MockActivityEnvironment({}, { logger });
    const streamed = await env.run(activities.callModel, callInput());
    const whole = await env.run(activities.callModel, callInput());
    expect(streamed).toMatchObject({
      message: { role: 'assistant', content: 'Forty-two.' },
      reasoning: 'Six times seven.',
    });
    expect(whole).toMatchObject({
      message: { role: 'assistant', content: 'Forty-two again.' },
      reasoning: 'Six times seven, again.',
    });
    fake.assertDone();
  });
});

describe('goal components against endpoints that refuse response_format', () => {
  it("no response_format at all: the component's JSON Schema goes into the system prompt and the reply is still parsed", async () => {
    const assessment = {
      directly_executable: true,
      reasoning: 'simple',
      action: { kind: 'answer', description: 'say it' },
    };
    fake.refuse(['json_schema', 'json_object']).script({ content: JSON.stringify(assessment) });
    const { activities, logger } = worker();
    const input = {
      model: 'fake-model',
      rootGoal: 'Say hi',
      goal: 'Say hi',
      stack: [],
      tools: [],
      evidence: [],
      canDecompose: true,
    };
    const output = (await new MockActivityEnvironment({}, { logger }).run(
      activities.assessGoal,
      input,
    )) as ComponentOutput<Assessment>;
    expect(output).toMatchObject({ ok: true, value: assessment });
    expect(output.usage.estimated).toBeUndefined();
    expect(fake.requests.map((r) => r.response_format?.type)).toEqual(['json_schema', 'json_object', undefined]);
    const system = String(fake.requests[2].messages[0].content);
    expect(system).toMatch(/matches this JSON Schema:\n\{.*"directly_executable"/);
    fake.assertDone();
  });
});
