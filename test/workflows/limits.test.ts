import { describe, expect, it } from 'vitest';
import { budgetProblem, CircuitBreaker, iterationWarning, softDeadline } from '../../src/workflows/limits';

const usage = (total: number) => ({ promptTokens: total - 10, completionTokens: 10, totalTokens: total });

describe('limits', () => {
  it('budgetProblem: stops when the next call, sized like the last, would pass the token budget', () => {
    expect(budgetProblem({ maxTokens: 300 }, usage(110), usage(110))).toBeUndefined();
    expect(budgetProblem({ maxTokens: 300 }, usage(220), usage(110))).toMatch(/^the token budget \(300\) would be exceeded: 220 used/);
    expect(budgetProblem({}, usage(1e9), usage(1e9))).toBeUndefined();
  });

  it('budgetProblem: prices tokens by the model; an unknown price never stops the run', () => {
    const price = { inputPerMTok: 2.5, outputPerMTok: 10 };
    expect(budgetProblem({ maxCostUsd: 0.0005, price }, usage(110), usage(110))).toMatch(/cost budget/);
    expect(budgetProblem({ maxCostUsd: 0.0005, price: null }, usage(1e6), usage(1e6))).toBeUndefined();
  });

  it('softDeadline: leaves 10% of the timeout, between 5 s and 2 min', () => {
    const end = new Date('2026-11-22T12:00:00Z');
    expect(softDeadline(end, 60_000)).toBe(end.getTime() - 6_000);
    expect(softDeadline(end, 10_000)).toBe(end.getTime() - 5_000);
    expect(softDeadline(end, 3_600_000)).toBe(end.getTime() - 120_000);
    expect(softDeadline(undefined, undefined)).toBeUndefined();
  });

  it('iterationWarning: silent until the last fifth (or the last two) of the iterations', () => {
    expect([1, 2, 3, 4, 5].map((i) => iterationWarning(i, 5))).toEqual([
      undefined,
      undefined,
      undefined,
      'Iteration 4 of 5: 1 iteration left. Wrap up soon.',
      'This is iteration 5 of 5, the last one: give your final answer now.',
    ]);
    expect(iterationWarning(15, 20)).toBeUndefined();
    expect(iterationWarning(16, 20)).toBe('Iteration 16 of 20: 4 iterations left. Wrap up soon.');
  });

  it('CircuitBreaker: opens on the same error N times in a row, not on different errors, and resets on success', () => {
    const breaker = new CircuitBreaker(3);
    expect(breaker.record('t', false, 'boom')).toBeUndefined();
    expect(breaker.record('t', false, 'bang')).toBeUndefined();
    expect(breaker.record('t', false, 'bang')).toBeUndefined();
    expect(breaker.record('other', false, 'bang')).toBeUndefined();
    expect(breaker.record('t', false, 'bang')).toBe('t failed 3 times in a row: bang');
    breaker.record('t', true);
    expect(breaker.record('t', false, 'bang')).toBeUndefined();
    expect(new CircuitBreaker(0).record('t', false, 'x')).toBeUndefined();
  });
});
