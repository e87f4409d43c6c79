import { describe, expect, it } from 'vitest';
import { findCycle, goalSimilarity, goalWords } from '../../../src/workflows/goal-tree/cycles';

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
