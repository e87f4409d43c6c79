/**
 * The workflow ids of a goal tree, derived from its root's: `<root>` for the root, `<root>/1` below
 * it, then `<root>/1.2`, `<root>/1.2.3`, … A goal's tool loop is `<goal id>/exec`.
 */

/** The workflow id of the goal at `path` (1-based positions under each ancestor; `[]` is the root). */
export function goalWorkflowId(rootId: string, path: readonly number[]): string {
  return path.length === 0 ? rootId : `${rootId}/${path.join('.')}`;
}

/** The workflow id of the tool loop that executes the goal `goalId`. */
export function executionWorkflowId(goalId: string): string {
  return `${goalId}/exec`;
}
