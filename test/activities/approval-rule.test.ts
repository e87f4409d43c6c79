import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Registry } from '../../src/activities';
import { approvalRuleOf, askApprovalRule } from '../../src/activities/approval-rule';
import { createResolveRun } from '../../src/activities/resolve-run';
import { defineAgent } from '../../src/agents/define';
import { builtinTools, defineTool } from '../../src/tools';

const pay = defineTool({
  name: 'pay',
  description: 'Pays.',
  parameters: z.object({ amount: z.number() }),
  requiresApproval: ({ amount }) => amount > 1000 && `over 1,000 USD`,
  approvalTimeoutSeconds: 3600,
  execute: () => 'paid',
});
const read = defineTool({ name: 'read', description: 'Reads.', parameters: z.object({}), execute: () => 'x' });
const agents = [
  defineAgent({ name: 'default', system: 'You help.' }),
  defineAgent({
    name: 'strict',
    system: 'You help.',
    requiresApproval: { pay: true, read: true },
    onApprovalTimeout: 'approve',
  }),
  defineAgent({ name: 'lax', system: 'You help.', requiresApproval: { pay: false } }),
];
const registry = new Registry([...builtinTools(), pay, read], agents);
const context = { workflowId: 'w', agent: 'default', tool: 'pay', startedBy: 'alice' };

describe('approval rules', () => {
  it("an agent's rule for a tool replaces the tool's own; without one the tool's applies", () => {
    expect(approvalRuleOf(registry, 'default', 'pay')).toBe(pay.requiresApproval);
    expect(approvalRuleOf(registry, 'strict', 'pay')).toBe(true);
    expect(approvalRuleOf(registry, 'lax', 'pay')).toBe(false);
    expect(approvalRuleOf(registry, 'default', 'read')).toBeUndefined();
  });

  it('false lets the call run; true or a reason makes it wait; a rule that throws or answers nonsense makes it wait with what went wrong', async () => {
    const rule = approvalRuleOf(registry, 'default', 'pay');
    expect(await askApprovalRule(rule, { amount: 10 }, context)).toBeUndefined();
    expect(await askApprovalRule(rule, { amount: 5000 }, context)).toEqual({ reason: 'over 1,000 USD' });
    expect(await askApprovalRule(true, {}, context)).toEqual({});
    expect(await askApprovalRule(false, {}, context)).toBeUndefined();
    expect(await askApprovalRule(undefined, {}, context)).toBeUndefined();
    const broken = () => {
      throw new Error('no ledger');
    };
    expect(await askApprovalRule(broken, {}, context)).toEqual({
      reason: 'the approval rule of pay failed: no ledger',
      broken: true,
    });
    expect(await askApprovalRule(async () => Promise.reject(new Error('timeout')), {}, context)).toEqual({
      reason: 'the approval rule of pay failed: timeout',
      broken: true,
    });
    const nonsense = (() => 42) as unknown as () => boolean;
    expect(await askApprovalRule(nonsense, {}, context)).toEqual({
      reason:
        'the approval rule of pay answered 42, not true, false, a reason or { approvers, quorum, fourEyes, reason }',
      broken: true,
    });
  });

  it('resolveRun: a rule is asked on the worker, a boolean decides in the workflow; deadlines come from the run, else the agent, else the tool', async () => {
    const resolve = createResolveRun({
      registry,
      defaults: { model: 'm' },
      now: () => new Date('2026-11-22T10:00:00Z'),
    });
    const approvals = async (input: Record<string, unknown>) =>
      Object.fromEntries(
        (await resolve({ goal: 'x', tools: ['pay', 'read'], ...input })).tools.map((t) => [t.name, t.approval]),
      );
    expect(await approvals({})).toEqual({
      pay: { when: 'rule', timeoutSeconds: 3_600, onTimeout: 'deny' },
      read: undefined,
    });
    expect(await approvals({ agent: 'strict' })).toEqual({
      pay: { when: 'always', timeoutSeconds: 3_600, onTimeout: 'approve' },
      read: { when: 'always', onTimeout: 'approve' },
    });
    expect(await approvals({ agent: 'lax', toolsToApprove: ['read'], approvalTimeoutSeconds: 60 })).toEqual({
      pay: undefined,
      read: { when: 'always', timeoutSeconds: 60, onTimeout: 'deny' },
    });
  });

  it('a worker refuses an agent with a rule for a tool it does not have', () => {
    const stray = defineAgent({ name: 'stray', system: 'x', requiresApproval: { wire_money: true } });
    expect(() => new Registry(builtinTools(), [stray])).toThrow(
      'Agent "stray" has approval rules for tools that are not registered: wire_money.',
    );
  });
});
