import type { Client } from '@temporalio/client';
import type { Priority } from '@temporalio/common';
import { AGENT_LOOP_WORKFLOW, type RunProgress } from '../contract/agent-loop';
import { PURSUE_GOAL_WORKFLOW } from '../contract/goal-tree/defaults';
import { setPriority, withPriority } from '../contract/priority';
import { WAVELOOP_STATUS } from '../contract/search-attributes';

/**
 * The runs `waveloop list` shows: agent runs and goal trees, newest first, from Temporal's
 * visibility store, each with its own status and its goal.
 */

/** Every status an agent run's `WaveloopStatus` takes: while it runs, then how it ended. */
export const RUN_STATES = [
  'running',
  'waiting_for_input',
  'waiting_for_approval',
  'waiting_for_message',
  'completed',
  'max_iterations',
  'budget_exhausted',
  'deadline',
  'circuit_open',
  'cancelled',
  'invalid_output',
  'failed',
] as const satisfies readonly RunProgress['status'][];

/** A status an agent run's `WaveloopStatus` takes. */
export type RunState = (typeof RUN_STATES)[number];

// Fails to compile when the workflow gains a status this list lacks.
const _allStates: Exclude<RunProgress['status'], (typeof RUN_STATES)[number]> extends never ? true : never = true;

/** The memo field that holds a run's goal (a goal tree's objective), as `waveloop` starts them. */
export const GOAL_MEMO = 'goal';

/**
 * The memo field that holds the Priority a run was started with, as `waveloop` starts them:
 * Temporal's list of workflows does not return a workflow's Priority, its memo it does.
 */
export const PRIORITY_MEMO = 'priority';

export interface ListedRun {
  workflowId: string;
  runId: string;
  /** `agentLoop` (an agent run, a goal's tool loop included) or `pursueGoal` (a goal tree's root). */
  workflowType: string;
  /** Temporal's status: RUNNING, COMPLETED, FAILED, CANCELLED, TERMINATED, TIMED_OUT, … */
  execution: string;
  /** The run's own status (its `WaveloopStatus`, e.g. `waiting_for_approval`, `cancelled`), else Temporal's in lower case. */
  status: string;
  /** The goal, or a goal tree's objective (its memo, else its summary in the Web UI); absent when it has neither. */
  goal?: string;
  startTime: Date;
  closeTime?: Date;
  /** The Priority the run was started with (`priority`, `fairnessKey`, `fairnessWeight`), when it has one. */
  priority?: Priority;
}

/** How many runs without a goal in their memo are described at once (for their summary). */
const DESCRIBE_CONCURRENCY = 8;

/** What `runs.list` lists. */
export interface ListOptions {
  /** How many, newest first (default 20). */
  limit?: number;
  /** Only agent runs in this status (or in one of these). */
  status?: RunState | readonly RunState[];
  /** Only the runs this schedule started (Temporal's `TemporalScheduledById`). */
  schedule?: string;
}

/** The newest agent runs and goal trees (their roots; a tree's sub-goals are in `waveloop tree`). */
export async function listRuns(
  client: Client,
  { limit = 20, status, schedule }: ListOptions = {},
): Promise<ListedRun[]> {
  const states = typeof status === 'string' ? [status] : status;
  const kinds = states
    ? `WorkflowType = '${AGENT_LOOP_WORKFLOW}' AND ${WAVELOOP_STATUS.name} IN (${states.map((state) => `'${state}'`).join(', ')})`
    : `(WorkflowType = '${AGENT_LOOP_WORKFLOW}' OR (WorkflowType = '${PURSUE_GOAL_WORKFLOW}' AND ParentWorkflowId IS NULL))`;
  const query =
    schedule === undefined ? kinds : `${kinds} AND TemporalScheduledById = '${schedule.replace(/'/g, "\\'")}'`;
  const runs: ListedRun[] = [];
  for await (const run of client.workflow.list({ query })) {
    const own = run.typedSearchAttributes.get(WAVELOOP_STATUS);
    const goal = run.memo?.[GOAL_MEMO];
    runs.push({
      workflowId: run.workflowId,
      runId: run.runId,
      workflowType: run.type,
      execution: run.status.name,
      status: own ?? run.status.name.toLowerCase(),
      goal: typeof goal === 'string' ? goal : undefined,
      startTime: run.startTime,
      closeTime: run.closeTime,
      ...withPriority(setPriority((run.memo?.[PRIORITY_MEMO] as Priority | undefined) ?? run.priority)),
    });
    if (runs.length >= limit) break;
  }
  await describeGoals(
    client,
    runs.filter((run) => run.goal === undefined),
  );
  return runs;
}

/** Fills in the goal of runs started without one in their memo, from their summary. */
async function describeGoals(client: Client, runs: ListedRun[]): Promise<void> {
  for (let i = 0; i < runs.length; i += DESCRIBE_CONCURRENCY) {
    await Promise.all(
      runs.slice(i, i + DESCRIBE_CONCURRENCY).map(async (run) => {
        const description = await client.workflow
          .getHandle(run.workflowId, run.runId)
          .describe()
          .catch(() => undefined);
        run.goal = (await description?.staticSummary().catch(() => undefined)) ?? undefined;
      }),
    );
  }
}
