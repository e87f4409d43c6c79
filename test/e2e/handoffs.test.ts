import { WorkflowFailedError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defaultAgent } from '../../src/agents/default';
import { defineAgent } from '../../src/agents/define';
import { WaveloopClient } from '../../src/client/waveloop-client';
import { demoAgents } from '../../src/demo/agents';
import { Harness } from '../support/harness';
import { recordHistory } from '../support/history';

const h = new Harness();
beforeAll(() => h.start());
afterAll(() => h.stop());

const triage = defineAgent({
  name: 'triage',
  system: 'You read back-office requests and send each to the right team.',
  tools: ['search_users'],
  handoffs: ['billing'],
});
const billing = defineAgent({
  name: 'billing',
  description: 'Refunds, invoices and payments.',
  system: 'You are the billing team.',
  tools: ['calculator'],
  output: z.object({ refund: z.number() }),
});
const agents = [defaultAgent, ...demoAgents, triage, billing];
const GOAL = 'Alice was charged twice for 12.50: refund the second charge.';

/** The names of the tools a model request offered. */
const offered = (request: { tools?: Array<{ function: { name: string } }> }) =>
  (request.tools ?? []).map((tool) => tool.function.name).sort();

describe('handoffs: an agent hands the conversation over to another agent, in the same run', () => {
  it('triage hands over to billing: billing goes on with the transcript, with its own prompt and tools, and answers typed', async () => {
    h.fake.script(
      { content: 'Let me find Alice first.', toolCalls: [{ name: 'search_users', args: { query: 'Alice' } }] },
      { toolCalls: [{ name: 'transfer_to_billing', args: { reason: 'a refund' } }] },
      { toolCalls: [{ name: 'calculator', args: { expression: '12.5 * 1' } }] },
      { content: '{"refund": 12.5}' },
    );
    const { handle, result, progress } = await h.run({ goal: GOAL, agent: 'triage' }, { agents });

    h.fake.assertDone();
    expect(result).toMatchObject({
      status: 'completed',
      output: { refund: 12.5 },
      iterations: 4,
      handoffs: [{ from: 'triage', to: 'billing', iteration: 2, callId: expect.any(String) }],
    });
    expect(progress).toMatchObject({ agent: 'billing', handoffs: [{ from: 'triage', to: 'billing' }] });
    // Triage was offered its tools and the handoff; billing its own tools, not triage's.
    const [first, , third] = h.fake.requests;
    expect(offered(first)).toEqual(['search_users', 'transfer_to_billing']);
    expect(first.tools!.find((t) => t.function.name === 'transfer_to_billing')!.function).toMatchObject({
      description: expect.stringContaining('Refunds, invoices and payments.'),
    });
    expect(offered(third)).toEqual(['calculator']);
    // Billing's first request: billing's system prompt, then the whole conversation so far.
    expect(String(third.messages[0].content)).toMatch(/^You are the billing team\./);
    expect(third.messages[1]).toMatchObject({ role: 'user', content: GOAL });
    const said = JSON.stringify(third.messages);
    expect(said).toContain('search_users');
    expect(said).toContain('Handed over to the billing agent: a refund.');
    // The wave that handed over ran as one; the run's waves go on across the handoff.
    expect(result!.waves.map((wave) => wave.calls.map((call) => call.tool))).toEqual([
      ['search_users'],
      ['transfer_to_billing'],
      ['calculator'],
    ]);
    // What the model said with its calls stays with their wave, in the result too.
    expect(result!.waves[0]).toMatchObject({ iteration: 1, said: 'Let me find Alice first.' });
    expect(result!.waves[1]!.said).toBeUndefined();
    await recordHistory('handoff', handle);
  });

  it('a fork after the handoff goes on as billing, from the transcript so far; one before it, as triage', async () => {
    h.fake.script(
      { toolCalls: [{ name: 'search_users', args: { query: 'Alice' } }] },
      { toolCalls: [{ name: 'transfer_to_billing', args: { reason: 'a refund' } }] },
      { toolCalls: [{ name: 'calculator', args: { expression: '12.5 * 1' } }] },
      { content: '{"refund": 12.5}' },
    );
    const { worker, taskQueue } = await h.worker({ agents });
    const client = new WaveloopClient(h.client, taskQueue);
    await worker.runUntil(async () => {
      const source = await client.runs.start({ goal: GOAL, agent: 'triage' });
      await client.runs.result(source.workflowId);
      h.fake.assertDone();

      // After iteration 2, the wave that handed over: billing answers, with billing's prompt and tools.
      h.fake.script({ content: '{"refund": 12.5}' });
      const after = await client.runs.fork({ workflowId: source.workflowId, iteration: 2 });
      expect(await client.runs.result(after.workflowId)).toMatchObject({
        status: 'completed',
        output: { refund: 12.5 },
      });
      const [billingAsked] = h.fake.requests.slice(-1);
      expect(String(billingAsked!.messages[0]!.content)).toMatch(/^You are the billing team\./);
      expect(offered(billingAsked!)).toEqual(['calculator']);

      // After iteration 1: triage, which may hand over again.
      h.fake.script({ content: 'Triage answers itself.' });
      const before = await client.runs.fork({ workflowId: source.workflowId, iteration: 1 });
      expect((await client.runs.result(before.workflowId)).answer).toBe('Triage answers itself.');
      const [triageAsked] = h.fake.requests.slice(-1);
      expect(offered(triageAsked!)).toEqual(['search_users', 'transfer_to_billing']);
    });
  });

  it('a handoff to an agent the run does not know is refused when the run starts, naming it', async () => {
    h.fake.script();
    const { error } = await h.run({ goal: GOAL, agent: 'triage', handoffs: ['payroll'] }, { agents });
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect(String((error as WorkflowFailedError).cause?.message)).toContain(
      'handoffs names "payroll", which is not an agent',
    );
  });

  it('an agent that hands off to itself is refused when the run starts', async () => {
    h.fake.script();
    const { error } = await h.run({ goal: GOAL, agent: 'triage', handoffs: ['triage'] }, { agents });
    expect(String((error as WorkflowFailedError).cause?.message)).toContain('agent "triage" hands off to itself');
  });
});
