import { describe, expect, it } from 'vitest';
import {
  budgetProblem,
  CircuitBreaker,
  iterationWarning,
  runDeadline,
  RunLimits,
  softDeadline,
} from '../../src/workflows/limits';

const usage = (total: number) => ({ promptTokens: total - 10, completionTokens: 10, totalTokens: total });

describe('limits', () => {
  it('budgetProblem: stops when the next call, sized like the last, would pass the token budget', () => {
    expect(budgetProblem({ maxTokens: 300 }, usage(110), usage(110))).toBeUndefined();
    expect(budgetProblem({ maxTokens: 300 }, usage(220), usage(110))).toMatch(
      /^the token budget \(300\) would be exceeded: 220 used/,
    );
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
    const fail = (error: string) => ({ error });
    expect(breaker.record('t', fail('boom'))).toBeUndefined();
    expect(breaker.record('t', fail('bang'))).toBeUndefined();
    expect(breaker.record('t', fail('bang'))).toBeUndefined();
    expect(breaker.record('other', fail('bang'))).toBeUndefined();
    expect(breaker.record('t', fail('bang'))).toEqual({ opened: 't failed 3 times in a row: bang' });
    breaker.record('t', { args: {}, result: 'ok' });
    expect(breaker.record('t', fail('bang'))).toBeUndefined();
    expect(new CircuitBreaker(0).record('t', fail('x'))).toBeUndefined();
  });

  it('CircuitBreaker: the same call with the same result N times in a row gets a note, once more opens it', () => {
    const breaker = new CircuitBreaker(3);
    const same = { args: { expression: '2+2' }, result: '4' };
    expect(breaker.record('calculator', same)).toBeUndefined();
    expect(breaker.record('calculator', same)).toBeUndefined();
    expect(breaker.record('calculator', same)).toEqual({
      note: expect.stringMatching(/^You have called calculator with the same arguments 3 times in a row/),
    });
    expect(breaker.record('calculator', same)).toEqual({
      opened: 'calculator was called 4 times in a row with the same arguments and gave the same result each time',
    });
    // Other arguments, or another result for the same arguments, start anew.
    const fresh = new CircuitBreaker(3);
    for (const outcome of [
      same,
      same,
      { ...same, args: { expression: '3+3' } },
      same,
      { ...same, result: '5' },
      same,
    ]) {
      expect(fresh.record('calculator', outcome)).toBeUndefined();
    }
    expect(new CircuitBreaker(0).record('t', same)).toBeUndefined();
  });

  it("runDeadline: the earlier of the soft deadline and the time limit counted from the chain's start", () => {
    const end = new Date('2026-11-22T12:00:00Z');
    const start = end.getTime() - 3_600_000;
    expect(runDeadline({ expiration: end, timeoutMs: 3_600_000 }, { timeoutSeconds: 60, startedAtMs: start })).toBe(
      start + 60_000,
    );
    expect(
      runDeadline({ expiration: end, timeoutMs: 3_600_000 }, { timeoutSeconds: undefined, startedAtMs: start }),
    ).toBe(end.getTime() - 120_000);
    expect(
      runDeadline({ expiration: undefined, timeoutMs: undefined }, { timeoutSeconds: undefined, startedAtMs: start }),
    ).toBeUndefined();
  });
});

describe('RunLimits: one answer to "must the run stop?"', () => {
  const settings = { maxIterations: 3, maxTokens: 1_000, maxCostUsd: undefined, circuitBreaker: 2, price: null };

  it('check: the iteration limit first, then the budgets, then the deadline', () => {
    let late = false;
    const limits = new RunLimits(settings, () => late);
    expect(limits.check(2, usage(100), usage(100))).toBeUndefined();
    expect(limits.check(3, usage(100), usage(100))).toEqual({ status: 'max_iterations' });
    expect(limits.check(2, usage(950), usage(100))).toMatchObject({
      status: 'budget_exhausted',
      reason: expect.stringMatching(/token budget \(1000\)/),
    });
    late = true;
    expect(limits.check(2, usage(100), usage(100))).toEqual({
      status: 'deadline',
      reason: 'the time limit of this run is close',
    });
  });

  it('newTurn: each turn of a conversation gets the full iteration limit, and its own warnings', () => {
    const limits = new RunLimits(settings, () => false);
    limits.newTurn(3);
    expect(limits.check(5, usage(10), usage(10))).toBeUndefined();
    expect(limits.check(6, usage(10), usage(10))).toEqual({ status: 'max_iterations' });
    expect(limits.warning(4)).toBeUndefined();
    expect(limits.warning(6)).toBe('This is iteration 3 of 3, the last one: give your final answer now.');
  });

  it('afterWave: the same failure in a row opens the circuit; a denial by a person does not count', () => {
    const limits = new RunLimits(settings, () => false);
    const failed = { id: 'c', tool: 't', args: {}, ok: false, error: 'boom' };
    const denied = { ...failed, error: 'denied: not today' };
    expect(limits.afterWave([failed, denied, denied])).toBeUndefined();
    expect(limits.afterWave([denied, failed])).toEqual({ opened: 'Circuit open: t failed 2 times in a row: boom' });
  });

  it('afterWave: the same call twice in one wave counts once; three waves of it get the note', () => {
    const limits = new RunLimits({ ...settings, circuitBreaker: 3 }, () => false);
    const call = { id: 'c', tool: 'calculator', args: { expression: '2+2' }, ok: true, result: '4' };
    expect(limits.afterWave([call, { ...call, id: 'd' }])).toBeUndefined();
    expect(limits.afterWave([call])).toBeUndefined();
    expect(limits.afterWave([call, { ...call, id: 'e' }])).toEqual({
      note: expect.stringContaining('3 times in a row'),
    });
  });

  it('afterUnusableReply: replies the planner cannot use count as failures of their own', () => {
    const limits = new RunLimits(settings, () => false);
    expect(limits.afterUnusableReply('not JSON')).toBeUndefined();
    expect(limits.afterUnusableReply('not JSON')).toBe('Circuit open: (planner) failed 2 times in a row: not JSON');
  });
});
