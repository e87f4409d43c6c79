import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defaultAgent } from '../../src/agents/default';
import { defineAgent } from '../../src/agents/define';
import { WaveloopClient } from '../../src/client/waveloop-client';
import { demoAgents } from '../../src/demo/agents';
import { defineTool } from '../../src/tools/define';
import { toolMessages, type ChatRequest, type ScriptedReply } from '../support/fake-model';
import { Harness } from '../support/harness';

/**
 * Agents as tools with the project's other tools (docs/agents.md): a fork of a triage run from
 * before its agent call runs a new child, and an eval scores the triage agent end to end, its
 * `toolsCalled` seeing the agent call.
 */
const h = new Harness();
beforeAll(() => h.start());
afterAll(() => h.stop());

/** Every refund that ran, in order: the tool's effect. */
const refunds: string[] = [];
const refund = defineTool({
  name: 'refund',
  description: 'Refunds an order.',
  parameters: z.object({ order: z.string() }),
  execute: ({ order }) => {
    refunds.push(order);
    return `refunded order ${order}`;
  },
});
const triage = defineAgent({
  name: 'triage',
  system: 'You are triage. You send requests to the right team.',
  tools: ['get_user'],
  agents: ['billing'],
});
const billing = defineAgent({ name: 'billing', system: 'You are billing. You refund orders.', tools: ['refund'] });
const agents = [defaultAgent, ...demoAgents, triage, billing];
const GOAL = 'Refund order 42 of user 1.';

/**
 * The model of both agents: triage looks the user up, then asks billing, then answers with what
 * billing said; billing refunds, then answers.
 */
function model(request: ChatRequest): ScriptedReply {
  const system = String(request.messages[0]?.content);
  const results = toolMessages(request);
  if (system.startsWith('You are billing'))
    return results.length === 0
      ? { toolCalls: [{ name: 'refund', args: { order: '42' } }] }
      : { content: 'Refunded order 42.' };
  if (results.length === 0) return { toolCalls: [{ name: 'get_user', args: { id: 1 } }] };
  if (results.length === 1) return { toolCalls: [{ name: 'billing', args: { task: 'Refund order 42.' } }] };
  return { content: `Billing says: ${results[1]}` };
}

describe('agents as tools, forked and evaluated', () => {
  it('a fork from before the agent call runs a new child, whose refund runs again; the source child is untouched', async () => {
    h.fake.route(model, { atMost: 12 });
    const { worker, taskQueue } = await h.worker({ agents, extraTools: [refund] });
    const client = new WaveloopClient(h.client, taskQueue);
    await worker.runUntil(async () => {
      const source = await client.runs.start({ goal: GOAL, agent: 'triage' });
      const done = await client.runs.result(source.workflowId);
      expect(done).toMatchObject({ status: 'completed', answer: 'Billing says: Refunded order 42.' });
      expect(refunds).toEqual(['42']);
      const sourceChild = done.waves[1]!.calls[0]!.agentRun!.workflowId;

      // Forked after iteration 1 (the lookup): the fork's own iteration 2 calls billing again.
      const fork = await client.runs.fork({ workflowId: source.workflowId, iteration: 1 });
      const result = await client.runs.result(fork.workflowId);
      expect(result).toMatchObject({ status: 'completed', answer: 'Billing says: Refunded order 42.' });
      expect(result.waves.map((wave) => wave.iteration)).toEqual([2]);
      const child = result.waves[0]!.calls[0]!.agentRun!;
      expect(child.workflowId).toBe(`${fork.workflowId}/${result.waves[0]!.calls[0]!.id}`);
      expect(child.workflowId).not.toBe(sourceChild);
      expect(child.status).toBe('completed');
      expect(refunds).toEqual(['42', '42']);
    });
  });

  it('an eval scores the triage agent end to end: toolsCalled sees the agent call, and a case naming a call it did not make fails', async () => {
    h.fake.route(model, { atMost: 12 });
    const { worker, taskQueue } = await h.worker({ agents, extraTools: [refund] });
    const client = new WaveloopClient(h.client, taskQueue);
    const report = await worker.runUntil(async () => {
      const handle = await client.evals.start({
        name: 'triage',
        concurrency: 1,
        cases: [
          { goal: GOAL, agent: 'triage', expect: { toolsCalled: ['get_user', 'billing'], contains: 'Refunded' } },
          {
            goal: GOAL,
            agent: 'triage',
            expect: { toolsCalled: [{ name: 'billing', args: { task: 'Refund order 7.' } }] },
          },
        ],
      });
      return client.evals.result(handle.workflowId);
    });
    expect(report.cases.map((c) => [c.passed, c.scores.toolsCalled?.pass])).toEqual([
      [true, true],
      [false, false],
    ]);
    expect(report.cases[1]!.scores.toolsCalled!.detail).toContain('billing');
  });
});
