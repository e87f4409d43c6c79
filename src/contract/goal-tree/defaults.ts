/**
 * The `pursueGoal` workflow's name and default limits. Free of zod on purpose: workflow code imports
 * it, and every workflow evaluates the modules it imports anew (src/workflows/lazy.ts).
 */

export const PURSUE_GOAL_WORKFLOW = 'pursueGoal';

/** Limits of a whole goal tree when the input does not set them. */
export const DEFAULT_GOAL_CONSTRAINTS = {
  /** Goals live at depths 0 … maxDepth-1; a goal at the deepest level must be executed directly. */
  maxDepth: 5,
  /** Goals across the whole tree, the root included. */
  maxGoals: 50,
  maxTimeSeconds: 3600,
  maxCostUsd: 10,
} as const;

/** Sub-goals a single decomposition may have. */
export const MAX_SUB_GOALS = 8;
