import { describe, expect, it } from 'vitest';
import type { GoalNode } from '../../../src/contract/goal-tree/pursue-goal';
import type { Usage } from '../../../src/contract/model/usage';
import type { LayerSettings } from '../../../src/contract/settings/declarations';
import { resolveTreeSettings } from '../../../src/contract/settings/resolve';
import { Ledger, type GoalTime } from '../../../src/workflows/goal-tree/ledger';

const usage = (promptTokens: number, completionTokens: number): Usage => ({
  promptTokens,
  completionTokens,
  totalTokens: promptTokens + completionTokens,
});
/** $1 per million prompt tokens, $2 per million completion tokens. */
const PRICE = { inputPerMTok: 1, outputPerMTok: 2 };

/**
 * A ledger for a goal at `depth` with `budget`, in a tree whose input gives the settings `tree` (the
 * tree's defaults otherwise); its time is what `time` says (not up by default).
 */
function ledger(
  budget: Partial<GoalNode['budget']> = {},
  options: { depth?: number; tree?: LayerSettings<'tree'>; time?: Partial<GoalTime>; price?: GoalNode['price'] } = {},
) {
  const time: GoalTime = { isUp: () => false, tooLateToStart: () => false, ...options.time };
  return new Ledger(
    {
      budget: { goals: 10, deadlineMs: 0, ...budget },
      price: options.price ?? null,
      depth: options.depth ?? 0,
      limits: resolveTreeSettings({ tree: options.tree }),
    },
    time,
  );
}

describe('Ledger: what a goal spent and has left', () => {
  it('Ledger: a new goal has spent itself (one goal) and nothing else', () => {
    expect(ledger({ goals: 5 }).spent).toEqual({ goals: 1, usage: usage(0, 0), costUsd: 0 });
    expect(ledger({ goals: 5 }).left()).toEqual({ goals: 4, tokens: undefined, costUsd: undefined });
  });

  it("Ledger: spend adds a model call's tokens, and its cost at the model's price", () => {
    const l = ledger({ tokens: 1_000, costUsd: 1 }, { price: PRICE });
    l.spend(usage(100, 10));
    l.spend(usage(200, 20));
    expect(l.spent).toMatchObject({ goals: 1, usage: usage(300, 30) });
    expect(l.spent.costUsd).toBeCloseTo((300 * 1 + 30 * 2) / 1e6, 12);
    expect(l.left()).toMatchObject({ goals: 9, tokens: 670 });
    expect(l.left().costUsd).toBeCloseTo(1 - 360 / 1e6, 12);
  });

  it('Ledger: a model with no known price costs nothing', () => {
    const l = ledger({ costUsd: 1 });
    l.spend(usage(1_000_000, 1_000_000));
    expect(l.spent.costUsd).toBe(0);
    expect(l.check('work')).toBeUndefined();
  });

  it('Ledger: a child that reports counts its goals, tokens and cost', () => {
    const l = ledger({ goals: 10, tokens: 1_000, costUsd: 1 });
    l.childReported({ goals: 3, usage: usage(400, 100), costUsd: 0.25 });
    expect(l.spent).toEqual({ goals: 4, usage: usage(400, 100), costUsd: 0.25 });
    expect(l.left()).toEqual({ goals: 6, tokens: 500, costUsd: 0.75 });
  });

  it('Ledger: a child lost without a report counts its whole grant as spent, though not as used', () => {
    const l = ledger({ goals: 10, tokens: 1_000, costUsd: 1 });
    l.childLost({ goals: 4, tokens: 300, costUsd: 0.5 });
    expect(l.spent).toEqual({ goals: 5, usage: usage(0, 0), costUsd: 0 });
    expect(l.left()).toEqual({ goals: 5, tokens: 700, costUsd: 0.5 });
  });

  it('Ledger: what is left of tokens and cost never goes below zero', () => {
    const l = ledger({ tokens: 100, costUsd: 0.000001 }, { price: PRICE });
    l.spend(usage(500, 500));
    expect(l.left()).toMatchObject({ tokens: 0, costUsd: 0 });
  });
});

describe('Ledger.check: may the goal go on?', () => {
  it('Ledger.check: with time, tokens and cost left, every step may go on', () => {
    const l = ledger({ tokens: 100, costUsd: 1 });
    expect(['work', 'start', 'decompose'].map((step) => l.check(step as never))).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('Ledger.check: a time that is up forbids work and starts, before any spent budget', () => {
    const l = ledger({ tokens: 100 }, { time: { isUp: () => true, tooLateToStart: () => true } });
    l.spend(usage(100, 0));
    expect(l.check('work')).toEqual({ kind: 'time', reason: 'Time limit (3600s) reached' });
    expect(l.check('start')?.kind).toBe('time');
  });

  it('Ledger.check: spent tokens, then spent cost, forbid work and starts', () => {
    const tokens = ledger({ tokens: 100, costUsd: 0.0001 }, { price: PRICE, tree: { maxTokens: 500 } });
    tokens.spend(usage(100, 0));
    expect(tokens.check('work')).toEqual({
      kind: 'tokens',
      reason: "Token limit (500 for the tree) reached: this goal's share is used up",
    });
    const cost = ledger({ tokens: 1_000, costUsd: 0.0001 }, { price: PRICE, tree: { maxCostUsd: 0.5 } });
    cost.spend(usage(200, 0));
    expect(cost.check('start')).toEqual({
      kind: 'cost',
      reason: "Cost limit ($0.5 for the tree) reached: this goal's share is used up",
    });
  });

  it('Ledger.check: too close to the deadline forbids starting a child, not other work; a spent budget is named first', () => {
    const late = ledger({ tokens: 100 }, { time: { tooLateToStart: () => true } });
    expect(late.check('work')).toBeUndefined();
    expect(late.check('start')?.kind).toBe('time');
    late.spend(usage(100, 0));
    expect(late.check('start')?.kind).toBe('tokens');
  });

  it('Ledger.check: a goal at the deepest level may not decompose (default depth 5)', () => {
    expect(ledger({}, { depth: 3 }).check('decompose')).toBeUndefined();
    expect(ledger({}, { depth: 4 }).check('decompose')).toEqual({
      kind: 'depth',
      reason: 'Max depth (5) reached: the goal cannot be decomposed further',
    });
    expect(ledger({}, { depth: 1, tree: { maxDepth: 2 } }).check('decompose')?.reason).toMatch(
      /^Max depth \(2\) reached/,
    );
  });

  it('Ledger.check: a goal with no goal left for a sub-goal may not decompose', () => {
    expect(ledger({ goals: 1 }, { tree: { maxGoals: 3 } }).check('decompose')).toEqual({
      kind: 'goals',
      reason: 'Goal limit (3) reached',
    });
    const l = ledger({ goals: 4 });
    expect(l.check('decompose')).toBeUndefined();
    l.childReported({ goals: 3, usage: usage(0, 0), costUsd: 0 });
    expect(l.check('decompose')?.kind).toBe('goals');
  });

  it('Ledger.check: decomposing asks nothing of time, tokens or cost', () => {
    const l = ledger({ tokens: 10 }, { time: { isUp: () => true } });
    l.spend(usage(10, 0));
    expect(l.check('decompose')).toBeUndefined();
  });
});

describe('Ledger.loopLimit: why a tool loop stopped', () => {
  const run = (status: 'deadline' | 'budget_exhausted', spent: Usage) => ({ status, usage: spent });

  it('Ledger.loopLimit: a loop that hit its deadline ran into the time limit', () => {
    expect(ledger().loopLimit(run('deadline', usage(0, 0)), { tokens: 100 })).toEqual({
      kind: 'time',
      reason: 'Time limit (3600s) reached',
    });
  });

  it('Ledger.loopLimit: a loop out of budget ran into the budget it used the larger share of', () => {
    const l = ledger({}, { price: PRICE });
    // 900 of 1,000 tokens (90 %), $0.0009 of $0.01 (9 %): tokens.
    expect(l.loopLimit(run('budget_exhausted', usage(900, 0)), { tokens: 1_000, costUsd: 0.01 }).kind).toBe('tokens');
    // 900 of 10,000 tokens (9 %), $0.0009 of $0.001 (90 %): cost.
    expect(l.loopLimit(run('budget_exhausted', usage(900, 0)), { tokens: 10_000, costUsd: 0.001 }).kind).toBe('cost');
    // Only a cost budget: cost.
    expect(l.loopLimit(run('budget_exhausted', usage(900, 0)), { costUsd: 0.001 }).kind).toBe('cost');
  });

  it('Ledger.loopLimit: a tie, or no budget known, is tokens', () => {
    expect(ledger().loopLimit(run('budget_exhausted', usage(10, 0)), {}).kind).toBe('tokens');
  });
});
