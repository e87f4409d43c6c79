import { randomUUID } from 'node:crypto';
import type { Client, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { GoalTreeInputSchema, PURSUE_GOAL_WORKFLOW, type GoalTreeInput } from '../contract/goal-tree/pursue-goal';
import { workflowSummary } from '../contract/goal-tree/text';
import { GOAL_MEMO } from './run-list';

export interface GoalStartOptions {
  /** Workflow id of the root; default `goal-<random>`. Its sub-goals are `<id>/1`, `<id>/1.2`, … */
  workflowId?: string;
  /** A hard wall-clock limit of the root workflow, on top of `constraints.maxTimeSeconds`. */
  timeout?: string | number;
}

/**
 * Validates the input (throws a `ZodError` that says what is wrong) and starts a goal tree: a
 * `pursueGoal` workflow whose summary in the Web UI (and goal in its memo) is the objective.
 */
export async function startGoalTree(
  client: Client,
  taskQueue: string,
  input: GoalTreeInput,
  options: GoalStartOptions = {},
): Promise<WorkflowHandleWithFirstExecutionRunId> {
  const valid = GoalTreeInputSchema.parse(input);
  return client.workflow.start(PURSUE_GOAL_WORKFLOW, {
    taskQueue,
    workflowId: options.workflowId ?? `goal-${randomUUID().slice(0, 8)}`,
    args: [valid],
    workflowExecutionTimeout: options.timeout as never,
    staticSummary: workflowSummary(valid.objective),
    memo: { [GOAL_MEMO]: workflowSummary(valid.objective) },
  });
}
