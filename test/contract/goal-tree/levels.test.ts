import { describe, expect, it } from 'vitest';
import { groupIntoLevels } from '../../../src/contract/goal-tree/levels';

describe('groupIntoLevels', () => {
  it('groupIntoLevels: independent sub-goals share the first level', () => {
    expect(groupIntoLevels([[], [], []])).toEqual({ levels: [[0, 1, 2]] });
  });

  it('groupIntoLevels: a sub-goal runs in the level after its last dependency', () => {
    expect(groupIntoLevels([[], [], [0, 1], [0], [2, 3]])).toEqual({ levels: [[0, 1], [2, 3], [4]] });
  });

  it('groupIntoLevels: a dependency on a later sub-goal is fine', () => {
    expect(groupIntoLevels([[1], []])).toEqual({ levels: [[1], [0]] });
  });

  it('groupIntoLevels: a cycle is reported and the sub-goals fall back to sequential order', () => {
    const { levels, problem } = groupIntoLevels([[], [2], [1]]);
    expect(levels).toEqual([[0], [1], [2]]);
    expect(problem).toBe('Dependency cycle among sub-goals 1, 2: the sub-goals ran one after another.');
  });

  it('groupIntoLevels: a sub-goal depending on itself is a cycle', () => {
    expect(groupIntoLevels([[0], []]).problem).toMatch(/^Dependency cycle among sub-goals 0:/);
  });

  it.each([
    ['out of range', [[], [5]], 'sub-goal 1 depends on 5'],
    ['negative', [[-1], []], 'sub-goal 0 depends on -1'],
    ['not an integer', [[], [0.5]], 'sub-goal 1 depends on 0.5'],
  ])('groupIntoLevels: a bad index (%s) is reported and the order becomes sequential', (_name, deps, detail) => {
    const { levels, problem } = groupIntoLevels(deps);
    expect(levels).toEqual([[0], [1]]);
    expect(problem).toContain(detail);
  });

  it('groupIntoLevels: no sub-goals, no levels', () => {
    expect(groupIntoLevels([])).toEqual({ levels: [] });
  });
});
