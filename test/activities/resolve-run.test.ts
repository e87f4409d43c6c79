import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Registry } from '../../src/activities';
import { createResolveRun } from '../../src/activities/resolve-run';
import { defineAgent } from '../../src/agents/define';
import { builtinTools } from '../../src/tools';
import { defineTool, type AnyTool } from '../../src/tools/define';

const agents = [
  defineAgent({ name: 'default', system: 'You help.' }),
  defineAgent({
    name: 'slow',
    system: 'You help slowly.',
    toolCallText: 'off',
    maxOutputTokens: 512,
    modelTimeoutSeconds: 1_800,
    modelAttempts: 2,
  }),
];
const resolve = (defaults: { modelTimeoutSeconds?: number; modelAttempts?: number } = {}) =>
  createResolveRun({
    registry: new Registry(builtinTools(), agents),
    defaults: { model: 'm', ...defaults },
    now: () => new Date('2026-11-22T10:00:00Z'),
  });

describe('resolveRun: model calls', () => {
  it('defaults: 4,096 output tokens, text tool calls recovered, 10 minutes an attempt, 8 attempts', async () => {
    const run = await resolve()({ goal: 'x' });
    expect(run).toMatchObject({
      settings: { maxOutputTokens: 4_096, toolCallText: 'recover', modelTimeoutSeconds: 600, modelAttempts: 8 },
      modelRetry: { maximumAttempts: 8, initialInterval: '1 second' },
    });
  });

  it('the run overrides its agent, and the agent the worker', async () => {
    const worker = resolve({ modelTimeoutSeconds: 120, modelAttempts: 5 });
    expect(await worker({ goal: 'x' })).toMatchObject({
      settings: { modelTimeoutSeconds: 120, modelAttempts: 5 },
      modelRetry: { maximumAttempts: 5 },
    });
    expect(await worker({ goal: 'x', agent: 'slow' })).toMatchObject({
      settings: { maxOutputTokens: 512, toolCallText: 'off', modelTimeoutSeconds: 1_800 },
      modelRetry: { maximumAttempts: 2 },
    });
    const run = await worker({
      goal: 'x',
      agent: 'slow',
      maxOutputTokens: 64,
      toolCallText: 'recover',
      modelTimeoutSeconds: 30,
      modelAttempts: 1,
    });
    expect(run).toMatchObject({
      settings: { maxOutputTokens: 64, toolCallText: 'recover', modelTimeoutSeconds: 30 },
      modelRetry: { maximumAttempts: 1 },
    });
  });

  it('bad values are refused as InvalidInput, naming the field', async () => {
    await expect(resolve()({ goal: 'x', toolCallText: 'maybe' })).rejects.toThrow(/toolCallText/);
    await expect(resolve()({ goal: 'x', maxOutputTokens: 0 })).rejects.toThrow(/maxOutputTokens/);
    await expect(resolve()({ goal: 'x', modelAttempts: 1.5 })).rejects.toThrow(/modelAttempts/);
  });
});

describe('resolveRun: flow control', () => {
  const withWidth = [
    ...agents,
    defineAgent({ name: 'narrow', system: 'You help one call at a time.', maxParallelTools: 2 }),
    defineAgent({ name: 'batch', system: 'You help later.', priority: 4, fairnessKey: 'ops' }),
  ];
  const resolveWidth = (maxParallelTools?: number) =>
    createResolveRun({
      registry: new Registry(builtinTools(), withWidth),
      defaults: { model: 'm', maxParallelTools },
      now: () => new Date('2026-11-22T10:00:00Z'),
    });

  it('maxParallelTools: 16 by default; the run overrides its agent, the agent the worker', async () => {
    const width = async (resolving: Promise<{ settings: { maxParallelTools: number } }>) =>
      (await resolving).settings.maxParallelTools;
    expect(await width(resolveWidth()({ goal: 'x' }))).toBe(16);
    expect(await width(resolveWidth(6)({ goal: 'x' }))).toBe(6);
    expect(await width(resolveWidth(6)({ goal: 'x', agent: 'narrow' }))).toBe(2);
    expect(await width(resolveWidth(6)({ goal: 'x', agent: 'narrow', maxParallelTools: 40 }))).toBe(40);
  });

  it("priority: the run's fields over its agent's, field by field; none at all: no Priority (tasks inherit the workflow's)", async () => {
    expect(await resolveWidth()({ goal: 'x' })).not.toHaveProperty('priority');
    expect(await resolveWidth()({ goal: 'x', agent: 'batch' })).toMatchObject({
      priority: { priorityKey: 4, fairnessKey: 'ops' },
    });
    const run = await resolveWidth()({ goal: 'x', agent: 'batch', fairnessKey: 'acme', fairnessWeight: 2 });
    expect(run.priority).toEqual({ priorityKey: 4, fairnessKey: 'acme', fairnessWeight: 2 });
  });

  it('maxParallelTools: zero, negative or fractional is refused as InvalidInput that says what it must be', async () => {
    for (const bad of [0, -3, 2.5, '4'])
      await expect(resolveWidth()({ goal: 'x', maxParallelTools: bad }), String(bad)).rejects.toMatchObject({
        type: 'InvalidInput',
        message: expect.stringMatching(/maxParallelTools must be a whole number from 1 to 1,000/),
      });
  });
});

describe('resolveRun: names that changed', () => {
  it('an old field name is refused with its new name, and nothing resolves', async () => {
    await expect(resolve()({ goal: 'x', requireApproval: ['ask_question'] })).rejects.toMatchObject({
      type: 'InvalidInput',
      message: expect.stringContaining('`requireApproval` is now `toolsToApprove`'),
    });
  });
});

describe('resolveRun: approval by effect', () => {
  const tool = (name: string, effect?: 'read' | 'idempotent' | 'write', requiresApproval?: boolean) =>
    defineTool({
      name,
      description: name,
      parameters: z.object({}),
      execute: () => 'ok',
      ...(effect ? { effect } : {}),
      ...(requiresApproval ? { requiresApproval } : {}),
    }) as unknown as AnyTool;
  const tools = [tool('find', 'read'), tool('note', 'idempotent'), tool('pay'), tool('check', 'read', true)];
  const run = createResolveRun({
    registry: new Registry(
      [...tools, ...builtinTools()],
      [
        defineAgent({ name: 'default', system: 'You help.' }),
        defineAgent({ name: 'careful', system: 'You help.', effectsToApprove: ['idempotent'] }),
      ],
    ),
    defaults: { model: 'm' },
    now: () => new Date('2026-11-22T10:00:00Z'),
  });
  const waiting = async (input: Record<string, unknown>) =>
    (await run({ goal: 'x', ...input })).tools.filter((t) => t.approval).map((t) => [t.name, t.effect]);

  it("a run's effectsToApprove makes every call of those effects wait; a tool's own rule and toolsToApprove still hold", async () => {
    expect(await waiting({})).toEqual([['check', 'read']]);
    expect(await waiting({ effectsToApprove: ['write'] })).toEqual([
      ['pay', 'write'],
      ['check', 'read'],
    ]);
    expect(await waiting({ effectsToApprove: ['write'], toolsToApprove: ['find'] })).toEqual([
      ['find', 'read'],
      ['pay', 'write'],
      ['check', 'read'],
    ]);
  });

  it("an agent's effectsToApprove joins the run's", async () => {
    expect(await waiting({ agent: 'careful' })).toEqual([
      ['note', 'idempotent'],
      ['check', 'read'],
    ]);
    expect(await waiting({ agent: 'careful', effectsToApprove: ['write'] })).toEqual([
      ['note', 'idempotent'],
      ['pay', 'write'],
      ['check', 'read'],
    ]);
  });

  it('an effect that is not one is refused, naming the setting', async () => {
    await expect(run({ goal: 'x', effectsToApprove: ['delete'] })).rejects.toThrow(/effectsToApprove/);
  });
});
