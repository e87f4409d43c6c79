import { describe, expect, it } from 'vitest';
import { GoalTreeInputSchema, parseGoalInput } from '../../../src/contract/goal-tree/pursue-goal';
import { settingNamesOf } from '../../../src/contract/settings/declarations';

const invalid = (message: RegExp) =>
  expect.objectContaining({ type: 'InvalidInput', message: expect.stringMatching(message) });

describe('goal tree input', () => {
  it("the task is `goal`, and the limits sit at the top level with a run's names", () => {
    const limits = {
      maxDepth: 3,
      maxGoals: 20,
      timeoutSeconds: 600,
      maxCostUsd: 1,
      maxTokens: 200_000,
      maxParallelGoals: 4,
    };
    expect(parseGoalInput({ goal: 'Plan the offsite', ...limits })).toEqual({ goal: 'Plan the offsite', ...limits });
  });

  it("every setting a tree may give is a field of its input, with the setting's name", () => {
    const fields = Object.keys(GoalTreeInputSchema.shape);
    for (const name of settingNamesOf('tree')) expect(fields, name).toContain(name);
  });

  it('maxParallelGoals: a whole number of at least 1; anything else fails InvalidInput naming it', () => {
    expect(parseGoalInput({ goal: 'x', maxParallelGoals: 2 }).maxParallelGoals).toBe(2);
    for (const bad of [0, -1, 1.5, 'two'])
      expect(() => parseGoalInput({ goal: 'x', maxParallelGoals: bad }), String(bad)).toThrow(
        invalid(/maxParallelGoals: maxParallelGoals must be a whole number from 1 to 100/),
      );
  });

  it('an old field name is refused with its new name, never ignored', () => {
    expect(() => parseGoalInput({ objective: 'Plan the offsite' })).toThrow(
      invalid(/objective: `objective` is now `goal`/),
    );
    expect(() => parseGoalInput({ goal: 'x', constraints: { maxDepth: 3 } })).toThrow(
      invalid(/constraints: `constraints` is now maxDepth, maxGoals, timeoutSeconds, .* at the top level/),
    );
    expect(() => parseGoalInput({ goal: 'x', maxTimeSeconds: 60 })).toThrow(
      invalid(/maxTimeSeconds: `maxTimeSeconds` is now `timeoutSeconds`/),
    );
    expect(GoalTreeInputSchema.safeParse({ objective: 'x' }).error?.issues.map((i) => i.message)).toContain(
      '`objective` is now `goal`',
    );
  });
});
