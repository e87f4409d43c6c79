import { describe, expect, it } from 'vitest';
import { compareWithBaseline, isRegression, renderChanges } from '../../../src/cli/eval/baseline';
import type { EvalCaseReport, EvalReport } from '../../../src/contract/eval/eval';

const kase = (goal: string, passed: boolean, tokens: number, costUsd = tokens / 1e6): EvalCaseReport => ({
  goal,
  passed,
  scores: {},
  workflowId: goal,
  status: 'completed',
  iterations: 1,
  tokens,
  costUsd,
  ms: 1,
});
const report = (cases: EvalCaseReport[]) => ({ cases }) as EvalReport;

describe('compareWithBaseline', () => {
  it('marks cases that passed and fail now, and tokens or cost changed over 20 %; only losses and rises regress', () => {
    const before = report([kase('a', true, 100), kase('b', true, 100), kase('c', false, 100), kase('d', true, 100)]);
    const now = report([
      kase('a', false, 110),
      kase('b', true, 60, 0.0001),
      kase('c', true, 100),
      kase('new', false, 5),
    ]);
    const changes = compareWithBaseline(now, before);
    expect(changes).toEqual([
      { goal: 'a', kind: 'regressed', before: true, now: false },
      { goal: 'b', kind: 'tokens', before: 100, now: 60 },
    ]);
    expect(changes.map(isRegression)).toEqual([true, false]);
    expect(renderChanges(changes)).toEqual([
      'Against the baseline:',
      '  REGRESSED  a: passed before, fails now',
      '  TOKENS     b: 100 → 60 (-40 %)',
    ]);
    const dearer = compareWithBaseline(report([kase('d', true, 100, 0.5)]), report([kase('d', true, 100, 0.1)]));
    expect(dearer).toEqual([{ goal: 'd', kind: 'cost', before: 0.1, now: 0.5 }]);
    expect(isRegression(dearer[0])).toBe(true);
  });
});
