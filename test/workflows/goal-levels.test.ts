import { describe, expect, it } from 'vitest';
import { findCycle, goalSimilarity, goalWords, groupIntoLevels } from '../../src/workflows/goal-levels';

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

describe('cycle detection', () => {
  it('goalWords: lower case, no punctuation, stop words or plural s', () => {
    expect(goalWords('Find the Flights to Tokyo, in March!')).toEqual(['find', 'flight', 'tokyo', 'march']);
  });

  it('goalSimilarity: the same goal in other words scores 1, an unrelated one 0', () => {
    expect(goalSimilarity('Write a report on solar power', 'write a report about Solar Power.')).toBe(1);
    expect(goalSimilarity('Book a hotel', 'Compare flight prices')).toBe(0);
  });

  it('goalSimilarity: a narrower sub-goal is not the same goal', () => {
    expect(goalSimilarity('Find flights and hotels in Tokyo', 'Find flights in Tokyo')).toBeLessThan(0.8);
  });

  it('findCycle: the most similar goal of the stack above the threshold, or nothing', () => {
    const stack = ['Plan a trip to Japan', 'Find flights from NYC to Tokyo in March'];
    expect(findCycle('Find flights from NYC to Tokyo in March.', stack)).toEqual({ ancestor: stack[1], similarity: 1 });
    expect(findCycle('Plan the trip to Japan!', stack)).toEqual({ ancestor: stack[0], similarity: 1 });
    expect(findCycle('Search Kayak for NYC-TYO flights, March 15-22', stack)).toBeUndefined();
    expect(findCycle('Find cheap flights from NYC to Tokyo in March', stack)?.similarity).toBeCloseTo(5 / 6);
  });

  it('findCycle: deterministic for the same input', () => {
    const stack = ['Research venues', 'Research the venues in Lisbon'];
    expect(findCycle('research venues in lisbon', stack)).toEqual(findCycle('research venues in lisbon', stack));
  });
});
