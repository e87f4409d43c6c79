import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ModelCallOutput } from '../../src/contract/activity-io';
import { AGENT_LOOP_WORKFLOW, type AgentLoopResult } from '../../src/contract/agent-loop';
import { Harness } from '../support/harness';
import { activities } from '../support/history';

/**
 * Runs against model endpoints that differ from OpenAI (llama.cpp's server, vLLM, Ollama, LM Studio,
 * less common hosted ones), each difference taught to the fake model: docs/reliability.md, "What
 * endpoints leave out or refuse", says how waveloop reacts to each.
 */
const h = new Harness();
beforeAll(() => h.start());
afterAll(() => h.stop());
afterEach(() => void h.fake.refuse([]));

/** A tool call of the calculator, different at every turn (the same call repeated opens the circuit). */
function calcTurn(request: { messages: Array<{ role: string }> }) {
  const turn = request.messages.filter((m) => m.role === 'assistant').length + 1;
  return { name: 'calculator', args: { expression: `${turn}+${turn}` } };
}

/** The `callModel` activities of a run, as its history records them. */
async function modelCalls(handle: WorkflowHandle) {
  return activities(await handle.fetchHistory(), h.blobStore).filter((a) => a.type === 'callModel');
}

describe('agentLoop against endpoints that differ from OpenAI', () => {
  it("a first token slower than the model call's heartbeat timeout (10 s): the call heartbeats while it waits, so Temporal lets its one attempt finish", async () => {
    h.fake.script({ content: 'Finally here.', stream: { firstTokenDelayMs: 12_000 } });
    const { handle, result } = await h.run({ goal: 'Answer slowly' });
    expect(result).toMatchObject({ status: 'completed', answer: 'Finally here.' });
    const history = await handle.fetchHistory();
    const scheduled = history.events!.find(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel',
    )!.activityTaskScheduledEventAttributes!;
    // The server would have timed the attempt out after 10 s without a heartbeat: it did not.
    expect(Number(scheduled.heartbeatTimeout?.seconds)).toBe(10);
    expect((await modelCalls(handle)).map((call) => call.attempts)).toEqual([1]);
    expect(history.events!.some((e) => e.activityTaskTimedOutEventAttributes)).toBe(false);
  });

  it('no usage reported: tokens are estimated and marked so, and a token budget still ends the run (budget_exhausted)', async () => {
    h.fake.route(
      (request) =>
        request.tools
          ? { toolCalls: [calcTurn(request)], usage: null }
          : { content: 'Partial: the sums so far.', usage: null },
      // At most 100 iterations, then the final answer the budget asks for.
      { atMost: 101 },
    );
    const { result } = await h.run({ goal: 'Add numbers forever', maxTokens: 20_000, maxIterations: 100 });
    expect(result).toMatchObject({ status: 'budget_exhausted', answer: 'Partial: the sums so far.' });
    expect(result!.usage.estimated).toBe(true);
    expect(result!.usage.totalTokens).toBeGreaterThan(0);
    expect(result!.iterations).toBeLessThan(100);
    // Neither the streamed nor the whole replies carried usage.
    expect(h.fake.requests.every((r) => r.stream)).toBe(true);
  });

  it('parallel_tool_calls and stream_options refused: each costs one 400, the call goes on without it, and the worker remembers', async () => {
    h.fake.refuse(['parallel_tool_calls', 'stream_options']);
    h.fake.script(
      { toolCalls: [{ name: 'calculator', args: { expression: '6*7' } }] },
      { content: 'It is 42.' },
      { content: 'Hello again.' },
    );
    const { worker, taskQueue } = await h.worker();
    const [first, second] = await worker.runUntil(async () => {
      const results: Array<{ handle: WorkflowHandle; result: AgentLoopResult }> = [];
      for (const goal of ['What is six times seven?', 'Say hello']) {
        const handle = await h.client.workflow.start(AGENT_LOOP_WORKFLOW, {
          taskQueue,
          workflowId: `endpoints-${randomUUID()}`,
          args: [{ goal }],
        });
        results.push({ handle, result: (await handle.result()) as AgentLoopResult });
      }
      return results;
    });
    h.fake.assertDone();
    expect(first.result).toMatchObject({ status: 'completed', answer: 'It is 42.' });
    expect(second.result).toMatchObject({ status: 'completed', answer: 'Hello again.' });
    // The first call was sent three times in one attempt; every later call, of either run, carries neither.
    const carried = h.fake.requests.map((r) => [r.parallel_tool_calls !== undefined, r.stream_options !== undefined]);
    expect(carried).toEqual([
      [true, true],
      [false, true],
      [false, false],
      [false, false],
      [false, false],
    ]);
    expect(h.fake.requests.every((r) => r.stream && r.tools?.length)).toBe(true);
    expect((await modelCalls(first.handle)).map((a) => a.attempts)).toEqual([1, 1]);
    // Streams without stream_options report no usage here: it is estimated.
    expect(second.result.usage.estimated).toBe(true);
  });

  it('response_format json_schema refused: the JSON planner asks for json_object instead and the run completes', async () => {
    h.fake.refuse(['json_schema']);
    const done = { status: 'done', action: 'answer', tools: [], reasoning: 'known', answer: 'Forty-two.' };
    h.fake.script({ content: JSON.stringify(done) });
    const { result } = await h.run({ goal: 'What is six times seven?', planner: 'json' });
    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', answer: 'Forty-two.' });
    expect(h.fake.requests.map((r) => r.response_format?.type)).toEqual(['json_schema', 'json_object']);
    expect(String(h.fake.requests[1].messages[0].content)).toMatch(/matches this JSON Schema:\n\{.*"status"/);
  });

  it("max_tokens refused: the run's output limit goes as max_completion_tokens", async () => {
    h.fake.refuse(['max_tokens']);
    h.fake.script({ content: 'Short.' });
    const { result } = await h.run({ goal: 'Be brief', maxOutputTokens: 256 });
    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', answer: 'Short.' });
    expect(h.fake.requests.map((r) => [r.max_tokens, r.max_completion_tokens])).toEqual([
      [256, undefined],
      [undefined, 256],
    ]);
  });

  it('reasoning_content and a <think> block: neither is the answer nor in the transcript the model gets back; the model calls keep them', async () => {
    h.fake.script(
      {
        reasoning: 'The user wants a product; use the calculator.',
        toolCalls: [{ name: 'calculator', args: { expression: '6*7' } }],
      },
      { content: '<think>\nThe calculator said 42.\n</think>\n\nIt is 42.' },
    );
    const { handle, result, transcript } = await h.run({ goal: 'What is six times seven?' });
    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', answer: 'It is 42.' });
    const thinking = /use the calculator|calculator said/;
    expect(JSON.stringify(transcript)).not.toMatch(thinking);
    expect(JSON.stringify(h.fake.requests[1].messages)).not.toMatch(thinking);
    const outputs = (await modelCalls(handle)).map((a) => a.result as ModelCallOutput);
    expect(outputs.map((o) => o.reasoning)).toEqual([
      'The user wants a product; use the calculator.',
      'The calculator said 42.',
    ]);
    expect(outputs[1].message.content).toBe('It is 42.');
  });

  it("an error event in the middle of a stream (llama.cpp's server): the call is retried as ModelServerError and the run completes", async () => {
    h.fake.script(
      { content: 'This reply breaks off half way through', stream: { errorAfter: 3 } },
      { content: 'Whole this time.' },
    );
    const { handle, result } = await h.run({ goal: 'Survive a broken stream' });
    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', answer: 'Whole this time.' });
    const started = (await handle.fetchHistory()).events!.filter((e) => e.activityTaskStartedEventAttributes);
    expect(started.map((e) => e.activityTaskStartedEventAttributes!.attempt)).toEqual([2]);
    expect(started[0].activityTaskStartedEventAttributes!.lastFailure?.applicationFailureInfo?.type).toBe(
      'ModelServerError',
    );
  });
});
