import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Registry } from '../../src/activities';
import { createResolveRun } from '../../src/activities/resolve-run';
import { defineAgent } from '../../src/agents/define';
import { validateProjectConfig } from '../../src/project/validate-config';
import { builtinTools } from '../../src/tools';
import { defineTool } from '../../src/tools/define';

const chargeCard = {
  name: 'charge_card',
  description: 'Charges a card.',
  parameters: z.object({ cardNumber: z.string(), iban: z.string().optional(), amount: z.number() }),
  execute: () => 'charged',
};

describe('defineTool({ sensitive })', () => {
  it('names parameters of the tool', () => {
    expect(defineTool({ ...chargeCard, sensitive: ['cardNumber', 'iban'] }).sensitive).toEqual(['cardNumber', 'iban']);
  });

  it('a name that is not a parameter is refused at definition time, naming it and the parameters there are', () => {
    expect(() => defineTool({ ...chargeCard, sensitive: ['card'] } as never)).toThrow(
      new TypeError('Tool "charge_card": sensitive "card" is not one of its parameters (cardNumber, iban, amount).'),
    );
    expect(() => defineTool({ ...chargeCard, sensitive: ['cardNumber', 'pin', 'cvc'] } as never)).toThrow(
      'Tool "charge_card": sensitive "pin", "cvc" are not among its parameters (cardNumber, iban, amount).',
    );
  });

  it('a project config accepts it', () => {
    const validated = validateProjectConfig(
      { tools: [defineTool({ ...chargeCard, sensitive: ['cardNumber'] })] },
      { builtinTools: [], demoTools: [], demoAgents: [] },
    );
    expect('config' in validated && validated.config.tools[0].sensitive).toEqual(['cardNumber']);
  });

  it("the run's ToolInfo carries the list, and only for a tool that has one", async () => {
    const resolve = createResolveRun({
      registry: new Registry(
        [
          ...builtinTools(),
          defineTool({ ...chargeCard, sensitive: ['cardNumber'] }),
          defineTool({ ...chargeCard, name: 'refund' }),
        ],
        [defineAgent({ name: 'default', system: 'You help.', tools: ['charge_card', 'refund'] })],
      ),
      defaults: { model: 'm' },
      now: () => new Date('2026-11-22T10:00:00Z'),
    });
    const { tools } = await resolve({ goal: 'x' });
    expect(tools.find((tool) => tool.name === 'charge_card')?.sensitive).toEqual(['cardNumber']);
    expect(tools.find((tool) => tool.name === 'refund')).not.toHaveProperty('sensitive');
  });
});
