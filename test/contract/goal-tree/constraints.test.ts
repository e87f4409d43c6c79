import { describe, expect, it } from 'vitest';
import { parseGoalInput } from '../../../src/contract/goal-tree/pursue-goal';

describe('goal tree constraints', () => {
  it('maxParallelGoals: a whole number of at least 1; anything else fails InvalidInput naming it', () => {
    expect(parseGoalInput({ objective: 'x', constraints: { maxParallelGoals: 2 } }).constraints).toEqual({
      maxParallelGoals: 2,
    });
    for (const bad of [0, -1, 1.5, 'two'])
      expect(() => parseGoalInput({ objective: 'x', constraints: { maxParallelGoals: bad } }), String(bad)).toThrow(
        expect.objectContaining({
          type: 'InvalidInput',
          message: expect.stringMatching(
            /constraints\.maxParallelGoals: maxParallelGoals must be (at least 1|a whole number)/,
          ),
        }),
      );
  });
});
