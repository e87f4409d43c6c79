import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent } from '../../src/agents/define';
import { handoffToolOf } from '../../src/agents/handoff-tool';
import { validateProjectConfig, type ReservedNames } from '../../src/project/validate-config';
import { defineTool } from '../../src/tools/define';

const reserved: ReservedNames = { builtinTools: ['task_complete'], demoTools: [], demoAgents: [] };
const problemOf = (exported: unknown) => {
  const validated = validateProjectConfig(exported, reserved);
  return 'problem' in validated ? validated.problem : undefined;
};

describe('handoffs in the config', () => {
  it('agents may hand off to each other, back and forth', () => {
    const triage = defineAgent({ name: 'triage', system: 'You triage.', handoffs: ['billing'] });
    const billing = defineAgent({ name: 'billing', system: 'You refund.', handoffs: ['triage'] });
    expect(problemOf({ agents: [triage, billing] })).toBeUndefined();
  });

  it('a handoff to an unknown agent, or to itself, is refused, naming it', () => {
    const triage = defineAgent({ name: 'triage', system: 'You triage.', handoffs: ['biling'] });
    expect(problemOf({ agents: [triage] })).toBe(
      'agent "triage" hands off to "biling", which is not an agent (agents: triage, default)',
    );
    const loop = defineAgent({ name: 'triage', system: 'You triage.', handoffs: ['triage'] });
    expect(problemOf({ agents: [loop] })).toBe('agent "triage" hands off to itself: a handoff goes to another agent');
  });

  it('a tool named like the handoff is refused', () => {
    const transfer = defineTool({
      name: 'transfer_to_billing',
      description: 'Moves money.',
      parameters: z.object({}),
      execute: () => 'moved',
    });
    const triage = defineAgent({ name: 'triage', system: 'You triage.', handoffs: ['billing'] });
    const billing = defineAgent({ name: 'billing', system: 'You refund.' });
    expect(problemOf({ tools: [transfer], agents: [triage, billing] })).toBe(
      'agent "triage" hands off to "billing", but a tool is named transfer_to_billing already',
    );
  });

  it("the model reads the handoff as transfer_to_<agent>, described by the agent's description", () => {
    expect(handoffToolOf({ name: 'billing', system: 'You refund.', description: 'Refunds orders.' })).toMatchObject({
      name: 'transfer_to_billing',
      description: 'Hand this conversation over to the billing agent, which goes on with it: Refunds orders.',
    });
  });
});
