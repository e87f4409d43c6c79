import { describe, expect, it } from 'vitest';
import { builtinScores, mismatch } from '../../../src/activities/eval/scorers';
import type { EvalRunResult } from '../../../src/contract/eval/eval';

const result: EvalRunResult = {
  status: 'completed',
  answer: 'Bob Martin works for Initech.',
  iterations: 2,
  usage: { promptTokens: 200, completionTokens: 20, totalTokens: 220 },
  waves: [
    { iteration: 1, calls: [{ id: 'c1', tool: 'get_user', args: { id: 2, full: true }, ok: true, result: '{}' }] },
  ],
  output: { company: 'Initech', people: [{ name: 'Bob', id: 2 }] },
};
const scores = (
  expect: Record<string, unknown>,
  run: Partial<{ result: EvalRunResult; failure: string }> = { result },
) => builtinScores({ case: { goal: 'g', expect }, workflowId: 'w', ...run });

describe('builtinScores', () => {
  it('scores what the case names, and status always (completed by default)', () => {
    expect(scores({ contains: ['initech', 'BOB'], equals: 'Bob Martin works for Initech.' })).toEqual({
      contains: { pass: true },
      equals: { pass: true },
      status: { pass: true },
    });
    expect(scores({ contains: ['Globex', 'Bob'], maxIterations: 1, maxTokens: 100 })).toEqual({
      contains: { pass: false, detail: 'the answer lacks "Globex"' },
      maxIterations: { pass: false, detail: '2 iterations' },
      maxTokens: { pass: false, detail: '220 tokens' },
      status: { pass: true },
    });
  });

  it('toolsCalled matches names, and arguments as a subset', () => {
    expect(scores({ toolsCalled: ['get_user', { name: 'get_user', args: { id: 2 } }] }).toolsCalled).toEqual({
      pass: true,
    });
    expect(scores({ toolsCalled: [{ name: 'get_user', args: { id: 3 } }, 'update_user'] }).toolsCalled).toEqual({
      pass: false,
      detail: 'not called: get_user({"id":3}), update_user (called: get_user)',
    });
  });

  it('a failed run fails every scorer but a status that expects it', () => {
    expect(scores({ contains: 'x', status: 'failed' }, { failure: 'ModelUnavailable: down' })).toEqual({
      contains: { pass: false, detail: 'the run failed: ModelUnavailable: down' },
      status: { pass: true },
    });
    expect(scores({}, { failure: 'boom' }).status).toEqual({ pass: false, detail: 'failed, not completed: boom' });
  });
});

describe('mismatch: a JSON subset match', () => {
  it('objects may hold more keys; arrays match item by item; values are equal', () => {
    expect(mismatch({ company: 'Initech', people: [{ name: 'Bob' }] }, result.output, 'output')).toBeUndefined();
    expect(mismatch({ people: [{ name: 'Ann' }] }, result.output, 'output')).toBe(
      'output.people[0].name is "Bob", not "Ann"',
    );
    expect(mismatch({ people: [] }, result.output, 'output')).toMatch(/^output.people is .*, not an array of 0$/);
    expect(mismatch({ missing: 1 }, result.output, 'output')).toBe('output.missing is undefined, not 1');
  });
});
