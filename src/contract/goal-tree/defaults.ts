/**
 * The `pursueGoal` workflow's name and the size of a decomposition. Free of zod on purpose: workflow
 * code imports it, and every workflow evaluates the modules it imports anew (src/workflows/lazy.ts).
 * A tree's limits and their defaults are settings, declared in `../settings/declarations`.
 */

export const PURSUE_GOAL_WORKFLOW = 'pursueGoal';

/** Sub-goals a single decomposition may have. */
export const MAX_SUB_GOALS = 8;
