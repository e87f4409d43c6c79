import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Registry } from '../../src/activities';
import { createResolveRun } from '../../src/activities/resolve-run';
import { defineAgent } from '../../src/agents/define';
import { builtinTools } from '../../src/tools';
import { defineTool } from '../../src/tools/define';

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks an order up.',
  parameters: z.object({ order: z.string() }),
  execute: ({ order }) => order,
});
const agents = [
  defineAgent({ name: 'default', system: 'You help.' }),
  defineAgent({ name: 'triage', system: 'You triage.', tools: ['lookup'], agents: ['billing'] }),
  defineAgent({ name: 'billing', system: 'You refund.', tools: ['lookup'], maxTokens: 5_000 }),
  defineAgent({ name: 'lookup', system: 'You look things up.' }),
];
const resolve = createResolveRun({
  registry: new Registry([...builtinTools(), lookup], agents),
  defaults: { model: 'm' },
  now: () => new Date('2026-11-22T10:00:00Z'),
});
const chain = {
  root: { workflowId: 'triage-1', goal: 'Refund order 42.' },
  parents: [{ agent: 'triage', workflowId: 'triage-1', callId: 'call_1' }],
  maxDepth: 3,
};

describe('resolveRun: agents as tools', () => {
  it("an agent's agents are tools of its runs, named after them, and the run keeps its goal for its children's chain", async () => {
    const run = await resolve({ goal: 'Refund order 42.', agent: 'triage' });
    expect(run.tools.map((tool) => [tool.name, tool.agent ?? false])).toEqual([
      ['lookup', false],
      ['billing', true],
    ]);
    expect(run.tree).toEqual({ goal: 'Refund order 42.' });
  });

  it("a child's budgets are lowered to what its parent left it, never raised", async () => {
    const lowered = await resolve({ goal: 'Refund.', agent: 'billing', chain: { ...chain, budget: { tokens: 700 } } });
    expect(lowered.settings.maxTokens).toBe(700);
    expect(lowered.tree).toEqual({ goal: 'Refund.', chain: { ...chain, budget: { tokens: 700 } } });
    const kept = await resolve({ goal: 'Refund.', agent: 'billing', chain: { ...chain, budget: { tokens: 9_000 } } });
    expect(kept.settings.maxTokens).toBe(5_000);
    const costed = await resolve({ goal: 'Refund.', agent: 'billing', chain: { ...chain, budget: { costUsd: 0.5 } } });
    expect(costed.settings.maxCostUsd).toBe(0.5);
  });

  it('an unknown agent, the run offering its own agent, or an agent named like one of its tools fails as InvalidInput', async () => {
    await expect(resolve({ goal: 'x', agent: 'triage', agents: ['biling'] })).rejects.toMatchObject({
      type: 'InvalidInput',
      nonRetryable: true,
      message:
        'agents names "biling", which is not an agent of this worker. Known agents: default, triage, billing, lookup.',
    });
    await expect(resolve({ goal: 'x', agent: 'triage', agents: ['triage'] })).rejects.toMatchObject({
      message: 'agent "triage" offers itself as a tool: every call of it would be a cycle.',
    });
    await expect(resolve({ goal: 'x', agent: 'triage', agents: ['lookup'] })).rejects.toMatchObject({
      message: expect.stringMatching(/^agents names "lookup", which is also one of the run's tools/),
    });
  });

  it('a chain the client made up is checked like any input', async () => {
    await expect(resolve({ goal: 'x', agent: 'billing', chain: { ...chain, parents: [] } })).rejects.toMatchObject({
      type: 'InvalidInput',
      message: expect.stringMatching(/chain\.parents/),
    });
  });
});
