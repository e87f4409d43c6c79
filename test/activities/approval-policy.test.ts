import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Registry } from '../../src/activities';
import { approvalPolicy, approvalRuleProblems, askApprovalRule } from '../../src/activities/approval-rule';
import { defineAgent } from '../../src/agents/define';
import { People } from '../../src/contract/people/people';
import { builtinTools, defineTool } from '../../src/tools';

/**
 * Who may decide a call, as the worker settles it when the call begins to wait: the rule's groups
 * as the names of their people, its quorum and four eyes, the tool's description and preview; a
 * rule's mistake lets anyone decide, with the mistake in the reason, never runs the call.
 */

const person = (name: string, groups: string[], digit: string) => ({ name, groups, tokenSha256: digit.repeat(64) });
const people = new People([
  {
    source: 'test',
    people: [
      person('alice', ['finance'], 'a'),
      person('bob', ['finance'], 'b'),
      person('carol', ['ops'], 'c'),
      person('dave', ['finance'], 'd'),
    ],
  },
]);
const pay = defineTool({
  name: 'pay',
  description: 'Pays a supplier.',
  parameters: z.object({ supplier: z.string(), amount: z.number() }),
  requiresApproval: ({ amount }) => (amount > 50_000 ? { reason: 'big', approvers: ['finance'], quorum: 2 } : false),
  preview: ({ supplier, amount }) => ({ text: supplier, changes: [{ field: 'balance', before: amount, after: 0 }] }),
  execute: () => 'paid',
});
const broken = defineTool({
  name: 'broken',
  description: 'Breaks.',
  parameters: z.object({}),
  requiresApproval: true,
  preview: () => {
    throw new Error('offline');
  },
  execute: () => 'x',
});
const registry = new Registry(
  [...builtinTools(), pay, broken],
  [defineAgent({ name: 'careful', system: 'x', fourEyes: true }), defineAgent({ name: 'default', system: 'x' })],
);
const context = (agent = 'default') => ({ workflowId: 'w', agent, tool: 'pay', startedBy: 'alice' });
const policy = (requirement: Parameters<typeof approvalPolicy>[0], agent?: string, tool = 'pay') =>
  approvalPolicy(requirement, {
    registry,
    people,
    args: { supplier: 'Initrode', amount: 60_000 },
    context: { ...context(agent), tool },
  });

describe('approval policy', () => {
  it("a rule's object: approvers as the names of their people, its quorum, the tool's description and preview", async () => {
    const requirement = await askApprovalRule(pay.requiresApproval as never, { amount: 60_000 }, context());
    expect(requirement).toEqual({ reason: 'big', approvers: ['finance'], quorum: 2 });
    expect(await policy(requirement!)).toEqual({
      reason: 'big',
      description: 'Pays a supplier.',
      approvers: { label: 'finance', names: ['alice', 'bob', 'dave'] },
      quorum: 2,
      fourEyes: false,
      preview: { text: 'Initrode', changes: [{ field: 'balance', before: 60_000, after: 0 }] },
    });
  });

  it("four eyes comes from the rule or from the agent's setting", async () => {
    expect((await policy({ fourEyes: true })).fourEyes).toBe(true);
    expect((await policy({}, 'careful')).fourEyes).toBe(true);
    expect((await policy({})).fourEyes).toBe(false);
  });

  it('an unknown group, or a quorum more than could approve (the starter excepted under four eyes), lets anyone decide, saying why', async () => {
    const unknown = await policy({ reason: 'big', approvers: ['payroll'], quorum: 2 });
    expect(unknown).toMatchObject({ quorum: 1 });
    expect(unknown.approvers).toBeUndefined();
    expect(unknown.reason).toBe(
      'big; the rule: approvers name payroll, which is neither a group nor a person (groups: finance, ops), so anyone may decide',
    );
    const many = await policy({ approvers: ['finance'], quorum: 3, fourEyes: true });
    expect(many).toMatchObject({ quorum: 1, fourEyes: true });
    expect(many.reason).toMatch(
      /quorum 3 is more than the people who could approve \(alice, bob, dave, alice excepted: four eyes\)/,
    );
    expect((await policy({ approvers: ['finance'], quorum: 3 })).quorum).toBe(3);
  });

  it('a rule answering a malformed object waits for anyone; a preview that throws is shown as its error', async () => {
    const nonsense = await askApprovalRule((() => ({ quorum: 'two' })) as never, {}, context());
    expect(nonsense).toMatchObject({ broken: true });
    expect(await policy(nonsense!)).toMatchObject({
      quorum: 1,
      reason: expect.stringContaining('answered {"quorum":"two"}'),
    });
    expect((await policy({}, undefined, 'broken')).preview).toEqual({ error: 'the preview failed: offline' });
  });

  it('rules declared as objects are checked against the people when the worker starts', () => {
    const strict = defineTool({ ...pay, name: 'strict', requiresApproval: { approvers: ['payroll'] } });
    const many = defineAgent({
      name: 'many',
      system: 'x',
      requiresApproval: { pay: { approvers: ['ops'], quorum: 2 } },
    });
    const problems = approvalRuleProblems(new Registry([pay, strict], [many]), people);
    expect(problems).toEqual([
      'tool strict: approvers name payroll, which is neither a group nor a person (groups: finance, ops)',
      'agent many, rule for pay: quorum 2 is more than the 1 person who could approve',
    ]);
    expect(approvalRuleProblems(registry, people)).toEqual([]);
  });
});
