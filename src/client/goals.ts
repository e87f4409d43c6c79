import type { Client, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { ZodError } from 'zod';
import { PURSUE_GOAL_WORKFLOW } from '../contract/goal-tree/defaults';
import { GoalTreeInputSchema, type GoalResult, type GoalTreeInput } from '../contract/goal-tree/pursue-goal';
import { outputSchemaProblem } from '../contract/output/schema';
import { goalEvents, readGoalTree, type GoalEvent, type GoalTreeNode, type HistoryCache } from './goal-tree';
import { startGoalWorkflow } from './start-workflow';

export interface GoalStartOptions {
  /** Workflow id of the root; default `goal-<random>`. Its sub-goals are `<id>/1`, `<id>/1.2`, … */
  workflowId?: string;
  /** A hard wall-clock limit of the root workflow, on top of the tree's `timeoutSeconds`. */
  timeout?: string | number;
}

/**
 * Goal trees (`pursueGoal`): start one, wait for its result, read the tree and its event log from
 * the workflow histories, cancel it. `WaveloopClient.goals`.
 */
export class GoalsClient {
  /** Who starts runs and decides through this client: its `identity`, else the Temporal client's. */
  private readonly identity: string;

  constructor(
    private readonly temporal: Client,
    private readonly taskQueue: string,
    identity?: string,
  ) {
    this.identity = identity ?? temporal.options.identity;
  }

  /**
   * Validates the input (throws a `ZodError` that says what is wrong) and starts a goal tree: a
   * `pursueGoal` workflow whose summary in the Web UI (and goal in its memo) is its `goal`. An old
   * field name (`objective`, `constraints`, `maxTimeSeconds`) is refused with its new name.
   */
  async start(input: GoalTreeInput, options: GoalStartOptions = {}): Promise<WorkflowHandleWithFirstExecutionRunId> {
    const valid = GoalTreeInputSchema.parse({ ...input, startedBy: input.startedBy ?? this.identity });
    const problem = valid.output && outputSchemaProblem(valid.output);
    if (problem) throw new ZodError([{ code: 'custom', path: ['output'], message: problem, input: valid.output }]);
    const start = { taskQueue: this.taskQueue, idPrefix: 'goal', goal: valid.goal, ...options };
    return startGoalWorkflow(this.temporal, PURSUE_GOAL_WORKFLOW, valid, start);
  }

  /** Waits for the tree's end and returns the root's result. */
  async result(workflowId: string): Promise<GoalResult> {
    return (await this.temporal.workflow.getHandle(workflowId).result()) as GoalResult;
  }

  /**
   * The tree rooted at `workflowId`, read from the workflow histories. `cache` keeps the histories
   * of closed workflows between calls (they cannot change), for a caller that reads a tree again.
   */
  async tree(workflowId: string, { cache }: { cache?: HistoryCache } = {}): Promise<GoalTreeNode> {
    return readGoalTree(this.temporal, workflowId, cache);
  }

  /** The tree's event log, oldest first (what `waveloop tree <id> --jsonl` prints). */
  async events(workflowId: string): Promise<GoalEvent[]> {
    return goalEvents(await this.tree(workflowId));
  }

  /** Requests cancellation of the tree: its running sub-goals and tool loops are cancelled with it. */
  async cancel(workflowId: string): Promise<void> {
    await this.temporal.workflow.getHandle(workflowId).cancel();
  }
}
