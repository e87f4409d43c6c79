import { randomUUID } from 'node:crypto';
import type { Client, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { DRY_RUN_MEMO } from '../contract/effects/dry-run';
import { temporalPriority, withPriority, type PriorityFields } from '../contract/flow/priority';
import { workflowSummary } from '../contract/goal-tree/text';
import { GOAL_MEMO, PRIORITY_MEMO, STARTED_BY_MEMO } from './run-list';

/** What starting an agent run or a goal tree takes besides its validated input. */
export interface GoalWorkflowStart {
  taskQueue: string;
  /** Its workflow id; default `<idPrefix>-<random>`. */
  workflowId?: string;
  idPrefix: string;
  /** A hard wall-clock limit (the workflow execution timeout), e.g. '10m' or milliseconds. */
  timeout?: string | number;
  /** The run's or the tree's goal: its summary in the Web UI and its goal in `waveloop list`. */
  goal: string;
}

/**
 * Starts `workflowType` with `input`, its goal as its Web UI summary and in its memo (`GOAL_MEMO`),
 * who started it in its memo (`STARTED_BY_MEMO`), a dry run marked so in both (`DRY_RUN_MEMO`),
 * and the input's priority fields as the workflow's Priority, so its workflow tasks are placed as
 * its activities are, and in its memo (`PRIORITY_MEMO`), which `waveloop list` reads.
 */
export async function startGoalWorkflow(
  temporal: Client,
  workflowType: string,
  input: PriorityFields & { startedBy?: string; dryRun?: boolean },
  { taskQueue, workflowId, idPrefix, timeout, goal }: GoalWorkflowStart,
): Promise<WorkflowHandleWithFirstExecutionRunId> {
  const summary = workflowSummary(goal);
  const priority = temporalPriority(input);
  return temporal.workflow.start(workflowType, {
    taskQueue,
    workflowId: workflowId ?? `${idPrefix}-${randomUUID().slice(0, 8)}`,
    args: [input],
    workflowExecutionTimeout: timeout as never,
    staticSummary: input.dryRun ? `DRY RUN · ${summary}` : summary,
    memo: {
      [GOAL_MEMO]: summary,
      ...(input.dryRun ? { [DRY_RUN_MEMO]: true } : {}),
      ...(input.startedBy ? { [STARTED_BY_MEMO]: input.startedBy } : {}),
      ...(priority ? { [PRIORITY_MEMO]: priority } : {}),
    },
    ...withPriority(priority),
  });
}
