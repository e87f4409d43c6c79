import { describe, expect, it } from 'vitest';
import {
  childDeadline,
  MAX_TIME_RESERVE_MS,
  RESERVE_FRACTION,
  shareLevel,
} from '../../../src/workflows/goal-tree/budget';

describe('shareLevel', () => {
  it('shareLevel: goals are split evenly after one is kept for each later sub-goal', () => {
    expect(shareLevel(2, 1, { goals: 9 }).map((s) => ('goals' in s ? s.goals : s))).toEqual([4, 4]);
    expect(shareLevel(3, 0, { goals: 8 }).map((s) => ('goals' in s ? s.goals : s))).toEqual([3, 3, 2]);
  });

  it('shareLevel: with fewer goals left than sub-goals, the first get one each and the rest are refused', () => {
    expect(shareLevel(4, 0, { goals: 2 })).toEqual([
      { goals: 1 },
      { goals: 1 },
      { refused: 'goals' },
      { refused: 'goals' },
    ]);
  });

  it('shareLevel: the shares of a level never add up to more goals than are left', () => {
    for (let left = 0; left <= 12; left++) {
      for (let count = 1; count <= 6; count++) {
        for (let later = 0; later <= 4; later++) {
          const total = shareLevel(count, later, { goals: left }).reduce((n, s) => n + ('goals' in s ? s.goals : 0), 0);
          expect(total).toBeLessThanOrEqual(left);
        }
      }
    }
  });

  it('shareLevel: tokens and cost are sliced over this and later sub-goals, the parent keeping a reserve', () => {
    const [a, b] = shareLevel(2, 2, { goals: 10, tokens: 10_000, costUsd: 1 });
    const slice = (1 - RESERVE_FRACTION) / 4;
    expect(a).toEqual({ goals: 4, tokens: Math.floor(10_000 * slice), costUsd: slice });
    expect(b).toEqual(a);
  });

  it('shareLevel: a level is refused when no token or cost is left to share', () => {
    expect(shareLevel(1, 0, { goals: 5, tokens: 0 })).toEqual([{ refused: 'tokens' }]);
    expect(shareLevel(1, 0, { goals: 5, costUsd: 0 })).toEqual([{ refused: 'cost' }]);
  });
});

describe('childDeadline', () => {
  it('childDeadline: the root gives its children all its time', () => {
    expect(childDeadline(10_000, 0, true)).toBe(10_000);
  });

  it('childDeadline: a child keeps a fifth of what it has left, at most 30 s, to record its children', () => {
    expect(childDeadline(10_000, 0, false)).toBe(8_000);
    expect(childDeadline(3_600_000, 0, false)).toBe(3_600_000 - MAX_TIME_RESERVE_MS);
    expect(childDeadline(1_000, 5_000, false)).toBe(1_000);
  });
});
