import type { ConstraintKind } from '../../contract/goal-tree/pursue-goal';

/**
 * How a goal shares its budgets with its sub-goals. Pure and deterministic (workflow code).
 *
 * Every limit is split top-down, so no goal ever needs to ask another workflow what is left:
 * a parent hands each child a quota before starting it, the child never exceeds it, and reports
 * what it used, which the parent takes back for later levels. The sum of the quotas handed out
 * never exceeds what the parent holds, so even parallel children cannot break a tree-wide limit.
 */

/** The share of its remaining time, tokens and cost a goal keeps for its own checks and synthesis. */
export const RESERVE_FRACTION = 0.2;
/** At most this much time is kept back (a long tree does not idle for minutes at each level). */
export const MAX_TIME_RESERVE_MS = 30_000;
/** A child is not started with less time than this: it could not do anything useful. */
export const MIN_CHILD_TIME_MS = 500;

export interface Left {
  /** Goals the parent may still start (its quota minus what it and its finished children used). */
  goals: number;
  tokens?: number;
  costUsd?: number;
}

/** What a sub-goal is given to start with: the goals its subtree may hold, and its slice of tokens and cost. */
export interface Grant {
  goals: number;
  tokens?: number;
  costUsd?: number;
}

/** A sub-goal's share of a level: a grant, or the limit that leaves nothing to grant it. */
export type Share = Grant | { refused: ConstraintKind };

/**
 * The shares of the `count` sub-goals of one level, given `later` sub-goals still to come in later
 * levels. Goals: each later sub-goal keeps one in reserve, the rest is split evenly (the first ones
 * get the remainder); when fewer goals are left than the level has sub-goals, the first ones get
 * one each and the rest are refused. Tokens and cost: the parent keeps `RESERVE_FRACTION`, the rest
 * is split evenly over this level and the later ones (unused shares come back after each level).
 */
export function shareLevel(count: number, later: number, left: Left): Share[] {
  const spare = left.goals - later;
  const goals = (i: number): number => {
    if (spare >= count) return Math.floor(spare / count) + (i < spare % count ? 1 : 0);
    return i < left.goals ? 1 : 0;
  };
  const slice = (amount: number | undefined) =>
    amount === undefined ? undefined : (amount * (1 - RESERVE_FRACTION)) / (count + later);
  const tokens = slice(left.tokens);
  const costUsd = slice(left.costUsd);
  return Array.from({ length: count }, (_, i): Share => {
    if (goals(i) < 1) return { refused: 'goals' };
    if (tokens !== undefined && Math.floor(tokens) < 1) return { refused: 'tokens' };
    if (costUsd !== undefined && costUsd <= 0) return { refused: 'cost' };
    return {
      goals: goals(i),
      ...(tokens !== undefined ? { tokens: Math.floor(tokens) } : {}),
      ...(costUsd !== undefined ? { costUsd } : {}),
    };
  });
}

/**
 * The deadline a goal gives its children: its own, minus a reserve to record their results in:
 * `RESERVE_FRACTION` of the time it had when it started (`startedAtMs`, its start event), at most
 * `MAX_TIME_RESERVE_MS`. The root keeps none: its children get all its time.
 */
export function childDeadline(deadlineMs: number, startedAtMs: number, isRoot: boolean): number {
  if (isRoot) return deadlineMs;
  const reserve = Math.min(MAX_TIME_RESERVE_MS, Math.max(0, deadlineMs - startedAtMs) * RESERVE_FRACTION);
  return deadlineMs - reserve;
}
