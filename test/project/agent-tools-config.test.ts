import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { agentToolOf } from '../../src/agents/agent-tool';
import { defineAgent } from '../../src/agents/define';
import { validateProjectConfig, type ReservedNames } from '../../src/project/validate-config';
import { defineTool } from '../../src/tools/define';

const reserved: ReservedNames = {
  builtinTools: ['task_complete', 'ask_question', 'converse'],
  demoTools: ['get_user'],
  demoAgents: ['back-office'],
};

const tool = (name: string) =>
  defineTool({ name, description: `Tool ${name}.`, parameters: z.object({ id: z.string() }), execute: ({ id }) => id });
const problemOf = (exported: unknown) => {
  const validated = validateProjectConfig(exported, reserved);
  return 'problem' in validated ? validated.problem : undefined;
};

describe('agents as tools in the config', () => {
  it('an agent may offer other agents, even ones that offer it back (a call back up a chain is refused when it happens)', () => {
    const triage = defineAgent({ name: 'triage', system: 'You triage.', agents: ['billing', 'crm'] });
    const billing = defineAgent({ name: 'billing', system: 'You refund.', agents: ['triage'] });
    const crm = defineAgent({ name: 'crm', system: 'You keep customers.' });
    expect(problemOf({ agents: [triage, billing, crm] })).toBeUndefined();
  });

  it('an agent offering an unknown agent is refused, naming both and the agents there are', () => {
    const triage = defineAgent({ name: 'triage', system: 'You triage.', agents: ['biling'] });
    expect(problemOf({ agents: [triage] })).toBe(
      'agent "triage" offers the agent "biling", which is not an agent (agents: triage, default)',
    );
  });

  it('an agent offering itself is a certain cycle, refused', () => {
    const triage = defineAgent({ name: 'triage', system: 'You triage.', agents: ['triage'] });
    expect(problemOf({ agents: [triage] })).toBe(
      'agent "triage" offers itself as a tool: every call of it would be a cycle, and be refused',
    );
  });

  it('an agent named like a tool, or with a name a model cannot call, cannot be offered as a tool', () => {
    const lookup = defineAgent({ name: 'lookup', system: 'You look up.' });
    const spaced = defineAgent({ name: 'the clerk', system: 'You file.' });
    const triage = defineAgent({ name: 'triage', system: 'You triage.', agents: ['lookup'] });
    expect(problemOf({ tools: [tool('lookup')], agents: [lookup, triage] })).toBe(
      'agent "triage" offers the agent "lookup" as a tool, but a tool has that name already',
    );
    const filing = defineAgent({ name: 'filing', system: 'You triage.', agents: ['the clerk'] });
    expect(problemOf({ agents: [spaced, filing] })).toMatch(
      /offers the agent "the clerk" as a tool, but a tool name may have only/,
    );
  });

  it('a description that is empty is refused by defineAgent', () => {
    expect(() => defineAgent({ name: 'crm', system: 'You keep customers.', description: ' ' })).toThrow(
      /Agent "crm": description: a description may not be empty/,
    );
  });

  it("the model reads an agent's description, else the first line of its system prompt, and gives it a task", () => {
    const described = agentToolOf({ name: 'billing', system: 'You refund.', description: 'Refunds orders.' });
    const undescribed = agentToolOf({ name: 'crm', system: '  Keeps customer records.\nNever delete anything.' });
    expect(described).toMatchObject({ name: 'billing', description: 'Refunds orders.' });
    expect(undescribed.description).toBe('Keeps customer records.');
    expect(undescribed.parameters).toMatchObject({ required: ['task'], properties: { task: { type: 'string' } } });
  });
});
