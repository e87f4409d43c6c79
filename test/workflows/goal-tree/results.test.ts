import { describe, expect, it } from 'vitest';
import type { AgentLoopResult, ToolCallRecord } from '../../../src/contract/agent-loop';
import type { GoalReport, GoalResult, GoalStatus, Synthesis } from '../../../src/contract/goal-tree/pursue-goal';
import { ZERO_USAGE } from '../../../src/contract/model/usage';
import type { Violation } from '../../../src/workflows/goal-tree/ledger';
import * as results from '../../../src/workflows/goal-tree/results';

const SPENT = { goals: 3, usage: { promptTokens: 200, completionTokens: 20, totalTokens: 220 }, costUsd: 0.5 };
const TOKENS: Violation = { kind: 'tokens', reason: 'Token limit (300 for the tree) reached' };
const GOALS: Violation = { kind: 'goals', reason: 'Goal limit (3) reached' };

function child(goal: string, status: GoalStatus, summary: string, report: Partial<GoalReport> = {}): GoalResult {
  return {
    goal,
    status,
    report: { summary, key_findings: [`${goal} finding`], confidence: 1, limitations: [], ...report },
    children: [],
    depth: 1,
    goals: 1,
    usage: ZERO_USAGE,
    costUsd: 0,
  };
}

function soFar(extra: Partial<results.GoalSoFar> = {}): results.GoalSoFar {
  return {
    goal: 'Plan the offsite',
    workflowId: 'tree',
    depth: 0,
    children: [],
    planned: 0,
    notes: [],
    spent: SPENT,
    ...extra,
  };
}

const synthesis = (extra: Partial<Synthesis> = {}): Synthesis => ({
  summary: 'All planned.',
  key_findings: ['venue booked'],
  confidence: 0.8,
  limitations: ['no catering yet'],
  ...extra,
});

describe('finish', () => {
  it("finish: the result names the goal, holds the model's report apart, and carries its children and what its subtree spent", () => {
    const children = [child('Book a venue', 'achieved', 'Booked.')];
    expect(results.finish(soFar({ children }), 'achieved', { summary: 'Done.', confidence: 0.9 })).toEqual({
      goal: 'Plan the offsite',
      status: 'achieved',
      report: { summary: 'Done.', key_findings: [], confidence: 0.9, limitations: [] },
      children,
      workflowId: 'tree',
      depth: 0,
      ...SPENT,
    });
  });

  it('finish: the summary falls back to the reason; reason and constraint are set only when given', () => {
    const result = results.finish(soFar(), 'constrained', { reason: 'Time limit (2s) reached', constraint: 'time' });
    expect(result).toMatchObject({
      report: { summary: 'Time limit (2s) reached' },
      reason: 'Time limit (2s) reached',
      constraint: 'time',
    });
    expect(results.finish(soFar(), 'achieved', { summary: 'x' })).not.toHaveProperty('reason');
    expect(results.finish(soFar(), 'achieved', { summary: 'x' })).not.toHaveProperty('constraint');
  });

  it("finish: the goal's notes follow the given limitations", () => {
    const result = results.finish(soFar({ notes: ['Dependency cycle among sub-goals 0, 1'] }), 'synthesized', {
      limitations: ['no prices'],
    });
    expect(result.report.limitations).toEqual(['no prices', 'Dependency cycle among sub-goals 0, 1']);
  });

  it('finish: raw evidence is kept to 12 items of 600 characters, and left out when there is none', () => {
    const result = results.finish(soFar(), 'achieved', {
      raw_evidence: Array.from({ length: 20 }, (_, i) => `${i}`.padEnd(1_000, 'x')),
    });
    expect(result.report.raw_evidence).toHaveLength(12);
    expect(result.report.raw_evidence!.every((item) => item.length === 600 && item.endsWith('…'))).toBe(true);
    expect(results.finish(soFar(), 'achieved', { raw_evidence: [] }).report).not.toHaveProperty('raw_evidence');
  });
});

describe('partial, failed, constrained: a goal that ends without a synthesis', () => {
  const children = [
    child('Book a venue', 'achieved', 'Casa Azul booked.', { raw_evidence: ['Casa Azul: 30 seats'] }),
    child('Estimate the budget', 'failed', 'The tool loop failed.'),
    child('Draft the agenda', 'synthesized', 'Two days.'),
  ];

  it('partial: the reason, how many planned sub-goals completed, and what the completed ones found', () => {
    expect(results.partial(soFar({ children, planned: 4 }), 'Time limit (2s) reached')).toEqual({
      summary: 'Time limit (2s) reached. 2 of 4 sub-goals completed: Casa Azul booked. Two days.',
      key_findings: ['Book a venue finding', 'Draft the agenda finding'],
      raw_evidence: ['Casa Azul: 30 seats'],
      confidence: 0,
    });
  });

  it('partial: none completed ends with a full stop; a goal that did not decompose has only the reason', () => {
    expect(results.partial(soFar({ children: [children[1]], planned: 2 })).summary).toBe('0 of 2 sub-goals completed.');
    expect(results.partial(soFar(), 'Goal limit (3) reached').summary).toBe('Goal limit (3) reached.');
  });

  it('partial: at most 10 findings', () => {
    const many = Array.from({ length: 4 }, (_, i) =>
      child(`g${i}`, 'achieved', 's', { key_findings: [`${i}a`, `${i}b`, `${i}c`] }),
    );
    expect(results.partial(soFar({ children: many, planned: 4 })).key_findings).toHaveLength(10);
  });

  it('constrained: status, reason and kind of the violation, with the partial findings', () => {
    const result = results.constrained(soFar({ children, planned: 3 }), TOKENS);
    expect(result).toMatchObject({
      status: 'constrained',
      reason: TOKENS.reason,
      constraint: 'tokens',
      report: { confidence: 0, raw_evidence: ['Casa Azul: 30 seats'] },
    });
    expect(result.report.summary).toBe(
      'Token limit (300 for the tree) reached. 2 of 3 sub-goals completed: Casa Azul booked. Two days.',
    );
  });

  it('failed: the reason is the summary of a goal with nothing completed, the completed findings otherwise', () => {
    expect(results.failed(soFar(), 'assess failed: timeout')).toMatchObject({
      status: 'failed',
      report: { summary: 'assess failed: timeout' },
      reason: 'assess failed: timeout',
    });
    const withChildren = results.failed(soFar({ children, planned: 3 }), 'synthesize failed');
    expect(withChildren).toMatchObject({
      status: 'failed',
      reason: 'synthesize failed',
      report: { summary: '2 of 3 sub-goals completed: Casa Azul booked. Two days.' },
    });
    expect(withChildren).not.toHaveProperty('constraint');
  });
});

describe('synthesized, noneStarted: a decomposed goal', () => {
  const unachieved = { achieved: false, confidence: 0.4, reasoning: '', remaining_gaps: ['catering'] };
  const achieved = { achieved: true, confidence: 0.9, reasoning: '', remaining_gaps: ['ignored'] };

  it('synthesized: achieved when the last check said so, the synthesis as it is', () => {
    expect(results.synthesized(soFar(), synthesis(), achieved, GOALS)).toMatchObject({
      status: 'achieved',
      report: { summary: 'All planned.', limitations: ['no catering yet'] },
    });
  });

  it("synthesized: not achieved is synthesized, with the check's gaps as limitations", () => {
    const result = results.synthesized(soFar(), synthesis(), unachieved, undefined);
    expect(result).toMatchObject({
      status: 'synthesized',
      report: { limitations: ['no catering yet', 'Remaining gap: catering'] },
    });
    expect(result).not.toHaveProperty('reason');
    expect(results.synthesized(soFar(), synthesis(), undefined, undefined)).toMatchObject({
      status: 'synthesized',
      report: { limitations: ['no catering yet'] },
    });
  });

  it('synthesized: not achieved after a limit refused a sub-goal is constrained by that limit', () => {
    expect(results.synthesized(soFar(), synthesis(), unachieved, GOALS)).toMatchObject({
      status: 'constrained',
      report: { summary: 'All planned.', limitations: ['no catering yet', 'Remaining gap: catering'] },
      reason: GOALS.reason,
      constraint: 'goals',
    });
  });

  it('noneStarted: constrained by the first refusal, else failed because each sub-goal repeated its stack', () => {
    expect(results.noneStarted(soFar({ planned: 2 }), GOALS)).toMatchObject({
      status: 'constrained',
      constraint: 'goals',
      report: { summary: 'Goal limit (3) reached. 0 of 2 sub-goals completed.' },
    });
    expect(results.noneStarted(soFar({ planned: 2 }), undefined)).toMatchObject({
      status: 'failed',
      report: { summary: 'No sub-goal could be pursued: every one repeats a goal on the stack.' },
    });
  });
});

describe('toolLoopEnded: an atomic goal from how its tool loop ended', () => {
  const call = (ok: boolean, result?: string): ToolCallRecord => ({
    id: 'c',
    tool: 'calculator',
    args: { expression: '1 + 1' },
    ok,
    ...(ok ? { result } : { error: 'bad' }),
  });
  const run = (status: AgentLoopResult['status'], calls: ToolCallRecord[]): AgentLoopResult => ({
    status,
    answer: 'So far: 2.',
    iterations: 3,
    waves: [{ iteration: 1, calls }],
    usage: ZERO_USAGE,
  });
  const limit: Violation = { kind: 'cost', reason: 'Cost limit ($1 for the tree) reached' };

  it('toolLoopEnded: completed is achieved; successful calls are the findings, their results the raw evidence', () => {
    const result = results.toolLoopEnded(
      soFar(),
      run('completed', [call(true, '2'), call(false), call(true, '')]),
      limit,
    );
    expect(result).toMatchObject({ status: 'achieved', report: { summary: 'So far: 2.', raw_evidence: ['2'] } });
    expect(result.report.key_findings).toEqual([
      'calculator({"expression":"1 + 1"}) → 2',
      'calculator({"expression":"1 + 1"}) → ',
    ]);
    // As confident as the share of calls that succeeded; fully without calls.
    expect(result.report.confidence).toBeCloseTo(2 / 3);
    expect(results.toolLoopEnded(soFar(), run('completed', []), limit).report.confidence).toBe(1);
  });

  it('toolLoopEnded: a loop that called one tool many times alike lists each finding and each piece of evidence once', () => {
    const waves = Array.from({ length: 17 }, (_, i) => ({ iteration: i + 1, calls: [call(true, '2')] }));
    const result = results.toolLoopEnded(
      soFar(),
      { ...run('completed', []), waves: [...waves, { iteration: 18, calls: [call(true, '3'), call(true, '2')] }] },
      limit,
    );
    expect(result.report.key_findings).toEqual([
      'calculator({"expression":"1 + 1"}) → 2',
      'calculator({"expression":"1 + 1"}) → 3',
    ]);
    expect(result.report.raw_evidence).toEqual(['2', '3']);
  });

  it('partial: the same finding of two sub-goals is listed once', () => {
    const same = { key_findings: ['the venue is free'], raw_evidence: ['free on 4 Dec'] };
    const fields = results.partial(
      soFar({ children: [child('a', 'achieved', 'A', same), child('b', 'achieved', 'B', same)] }),
    );
    expect(results.finish(soFar(), 'failed', fields)).toMatchObject({
      report: { key_findings: ['the venue is free'], raw_evidence: ['free on 4 Dec'] },
    });
  });

  it('toolLoopEnded: a deadline or spent budgets is constrained by the limit, after how many iterations', () => {
    for (const status of ['deadline', 'budget_exhausted'] as const) {
      expect(results.toolLoopEnded(soFar(), run(status, [call(true, '2')]), limit)).toMatchObject({
        status: 'constrained',
        report: { summary: 'So far: 2.' },
        constraint: 'cost',
        reason: 'Cost limit ($1 for the tree) reached: the tool loop stopped after 3 iterations',
      });
    }
  });

  it.each([
    ['max_iterations', 'The tool loop stopped at its iteration limit (3) without an answer.'],
    ['circuit_open', 'The tool loop stopped: So far: 2.'],
    ['cancelled', 'The tool loop was cancelled.'],
  ] as const)('toolLoopEnded: %s is failed, with what the loop found', (status, reason) => {
    expect(results.toolLoopEnded(soFar(), run(status, [call(true, '2')]), limit)).toMatchObject({
      status: 'failed',
      reason,
      report: { summary: 'So far: 2.', raw_evidence: ['2'] },
    });
  });
});

describe('sub-goals without a result of their own', () => {
  it("notStarted, cycleDetected, refused: no workflow, nothing spent, the reason as the report's summary", () => {
    const cycle = results.cycleDetected('Write a report about Solar Power.', 1, {
      ancestor: 'Write a report on solar power',
      similarity: 1,
    });
    expect(cycle).toEqual({
      goal: 'Write a report about Solar Power.',
      status: 'cycle_detected',
      report: {
        summary: 'Repeats "Write a report on solar power" on its goal stack (similarity 1.00).',
        key_findings: [],
        confidence: 0,
        limitations: [],
      },
      reason: 'Repeats "Write a report on solar power" on its goal stack (similarity 1.00).',
      children: [],
      depth: 1,
      goals: 0,
      usage: ZERO_USAGE,
      costUsd: 0,
    });
    expect(results.refused('Assess provider C', 1, GOALS)).toMatchObject({
      status: 'constrained',
      constraint: 'goals',
      reason: 'Goal limit (3) reached: not started.',
      goals: 0,
    });
    expect(results.refused('Assess provider C', 1, GOALS)).not.toHaveProperty('workflowId');
  });

  it('lost: a timed-out sub-goal is constrained by time, a failed one failed; each counts its granted goals', () => {
    expect(results.lost('Export sales', 2, 'tree/1.1', 4, 'timed out')).toMatchObject({
      status: 'constrained',
      constraint: 'time',
      reason: 'Time limit reached: the goal workflow timed out.',
      workflowId: 'tree/1.1',
      depth: 2,
      goals: 4,
      usage: ZERO_USAGE,
    });
    const failed = results.lost('Export sales', 2, 'tree/1.1', 1, { failure: 'ModelBadRequest: bad schema' });
    expect(failed).toMatchObject({
      status: 'failed',
      reason: 'The goal workflow failed: ModelBadRequest: bad schema',
      goals: 1,
    });
    expect(failed).not.toHaveProperty('constraint');
  });
});
