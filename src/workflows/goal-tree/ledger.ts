import type { AgentLoopResult } from '../../contract/agent-loop';
import type { ConstraintKind, GoalNode, GoalResult } from '../../contract/goal-tree/pursue-goal';
import { costOf } from '../../contract/model/pricing';
import { addUsage, ZERO_USAGE, type Usage } from '../../contract/model/usage';
import type { TreeSettings } from '../../contract/settings/resolve';
import type { Grant, Left } from './budget';

/** The tree's limits, resolved with their defaults (`resolveTreeSettings`). */
export type TreeLimits = Pick<TreeSettings, 'maxDepth' | 'maxGoals' | 'timeoutSeconds' | 'maxTokens' | 'maxCostUsd'>;

/**
 * A goal's ledger (how it enforces the tree's limits): what the goal and its subtree have spent,
 * what is left of its goals, tokens and cost, and, before each step, which limit forbids it if
 * one does. Pure: the goal's time comes in as two checks (`GoalTime`, durable timers in the
 * workflow), so the ledger never reads a clock itself.
 */

/** A limit the goal ran into, and the reason its result gives. */
export interface Violation {
  kind: ConstraintKind;
  reason: string;
}

/** What a goal and its subtree have used: goals (itself included), tokens, USD. */
export type Spent = Pick<GoalResult, 'goals' | 'usage' | 'costUsd'>;

/** A goal's time, as its timers tell it: whether its children's deadline has passed, and whether it is too close to start one. */
export interface GoalTime {
  isUp(): boolean;
  tooLateToStart(): boolean;
}

/**
 * What the goal is about to do. `work`: ask the model or pursue a level of sub-goals (needs time,
 * tokens and cost left). `start`: start a child workflow, a sub-goal or a tool loop (needs, besides,
 * time for the child to do something). `decompose`: plan sub-goals (needs a level below this one and
 * a goal left for a sub-goal).
 */
export type Step = 'work' | 'start' | 'decompose';

export interface LedgerOptions {
  /** The goal's share of the tree's budgets, from its parent (the tree's limits at the root). */
  budget: GoalNode['budget'];
  /** The model's price, to turn usage into cost; null when unknown (it then costs nothing). */
  price: GoalNode['price'];
  /** The goal's depth: 0 at the root. */
  depth: number;
  /** The tree's limits, for the depth limit and the reasons. */
  limits: TreeLimits;
}

export class Ledger {
  private goals = 1;
  private usage: Usage = ZERO_USAGE;
  private costUsd = 0;
  /** Tokens and cost of children that could not report what they used: their whole grant. */
  private lost = { tokens: 0, costUsd: 0 };

  constructor(
    private readonly options: LedgerOptions,
    private readonly time: GoalTime,
  ) {}

  /** What the goal and its finished children have used so far. */
  get spent(): Spent {
    return { goals: this.goals, usage: this.usage, costUsd: this.costUsd };
  }

  /** Books a model call of this goal (or a run of its tool loop): its tokens, and its cost at the model's price. */
  spend(usage: Usage): void {
    this.usage = addUsage(this.usage, usage);
    this.costUsd += costOf(usage, this.options.price);
  }

  /** Books what a child reported it used, its subtree included. */
  childReported(result: Spent): void {
    this.goals += result.goals;
    this.usage = addUsage(this.usage, result.usage);
    this.costUsd += result.costUsd;
  }

  /** Books a child that ended without a result (failed, timed out): its whole grant counts as spent. */
  childLost(grant: Grant): void {
    this.goals += grant.goals;
    this.lost.tokens += grant.tokens ?? 0;
    this.lost.costUsd += grant.costUsd ?? 0;
  }

  /** What is left of the goal's budgets: goals it may still start, and tokens and cost (undefined: no limit). */
  left(): Left {
    const { goals, tokens, costUsd } = this.options.budget;
    return {
      goals: goals - this.goals,
      tokens: tokens === undefined ? undefined : Math.max(0, tokens - this.usage.totalTokens - this.lost.tokens),
      costUsd: costUsd === undefined ? undefined : Math.max(0, costUsd - this.costUsd - this.lost.costUsd),
    };
  }

  /** The limit that forbids `step`, or undefined when the goal may go on. Time is checked first, then tokens, then cost. */
  check(step: Step): Violation | undefined {
    if (step === 'decompose') {
      if (this.options.depth + 1 >= this.options.limits.maxDepth) return this.violation('depth');
      if (this.left().goals < 1) return this.violation('goals');
      return undefined;
    }
    if (this.time.isUp()) return this.violation('time');
    const { tokens, costUsd } = this.left();
    if (tokens !== undefined && tokens <= 0) return this.violation('tokens');
    if (costUsd !== undefined && costUsd <= 0) return this.violation('cost');
    if (step === 'start' && this.time.tooLateToStart()) return this.violation('time');
    return undefined;
  }

  /**
   * The limit that stopped a tool loop that ended at its deadline (`time`) or with its budgets
   * spent: the budget it used the larger share of (`budgets`, what it was given), tokens on a tie.
   */
  loopLimit(run: Pick<AgentLoopResult, 'status' | 'usage'>, budgets: { tokens?: number; costUsd?: number }): Violation {
    if (run.status === 'deadline') return this.violation('time');
    const tokenShare = budgets.tokens ? run.usage.totalTokens / budgets.tokens : 0;
    const costShare = budgets.costUsd ? costOf(run.usage, this.options.price) / budgets.costUsd : 0;
    return this.violation(costShare > tokenShare ? 'cost' : 'tokens');
  }

  /** The violation of `kind`, its reason naming the tree's limit. */
  violation(kind: ConstraintKind): Violation {
    const limits = this.options.limits;
    const reasons: Record<ConstraintKind, () => string> = {
      depth: () => `Max depth (${limits.maxDepth}) reached: the goal cannot be decomposed further`,
      goals: () => `Goal limit (${limits.maxGoals}) reached`,
      time: () => `Time limit (${limits.timeoutSeconds}s) reached`,
      tokens: () => `Token limit (${limits.maxTokens} for the tree) reached: this goal's share is used up`,
      cost: () => `Cost limit ($${limits.maxCostUsd} for the tree) reached: this goal's share is used up`,
    };
    return { kind, reason: reasons[kind]() };
  }
}
