import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { outputSpecOf } from '../../../src/activities/output/output-spec';
import { defineAgent } from '../../../src/agents/define';

const invoices = defineAgent({
  name: 'invoices',
  system: 'You read invoices.',
  output: z.object({ amount: z.number() }),
  outputRepairs: 1,
});

/** The repairs and conversation of the run's settings, as `resolveRunSettings` made them from the agent. */
const settings = { outputRepairs: 1, conversation: false };

describe('outputSpecOf', () => {
  it("the run's schema wins over the agent's; null means free text (a goal tree's tool loops); else the agent's", () => {
    const own = { type: 'object', properties: { ok: { type: 'boolean' } } };
    expect(outputSpecOf({ goal: 'x', output: own }, invoices, settings)).toEqual({ schema: own, repairs: 1 });
    expect(outputSpecOf({ goal: 'x', output: null }, invoices, settings)).toBeUndefined();
    expect(outputSpecOf({ goal: 'x' }, invoices, settings)).toMatchObject({
      schema: { type: 'object', properties: { amount: { type: 'number' } } },
      repairs: 1,
    });
    expect(outputSpecOf({ goal: 'x' }, defineAgent({ name: 'plain', system: 'x' }), settings)).toBeUndefined();
  });
});
