import { WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { AGENT_LOOP_WORKFLOW, type AgentLoopResult } from '../contract/agent-loop';
import { PURSUE_GOAL_WORKFLOW } from '../contract/goal-tree/defaults';
import type { GoalResult } from '../contract/goal-tree/pursue-goal';
import { UnknownWorkflowError } from './unknown-workflow-error';
import type { WaveloopClient } from './waveloop-client';

/**
 * What kind of workflow an id names, so a command handed the other kind says what it is and which
 * command takes it, instead of failing on a query or a history the workflow does not have.
 */

/** An `agentLoop` (a goal's tool loop too), a `pursueGoal` (a goal tree, or a subtree of one), or anything else. */
export type WorkflowKind = 'agent run' | 'goal tree' | 'other';

export interface IdentifiedWorkflow {
  workflowId: string;
  kind: WorkflowKind;
  /** Temporal's workflow type: `agentLoop`, `pursueGoal`, … */
  workflowType: string;
  /** Temporal's status: RUNNING, COMPLETED, FAILED, CANCELLED, TERMINATED, TIMED_OUT, … */
  execution: string;
  taskQueue: string;
  /** The workflow that started this one: the goal a sub-goal or a goal's tool loop belongs to. */
  parentWorkflowId?: string;
}

/** Describes `workflowId` (its latest execution); throws `UnknownWorkflowError` when there is none. */
export async function identifyWorkflow(client: WaveloopClient, workflowId: string): Promise<IdentifiedWorkflow> {
  try {
    const description = await client.runs.handle(workflowId).describe();
    return {
      workflowId,
      kind:
        description.type === AGENT_LOOP_WORKFLOW
          ? 'agent run'
          : description.type === PURSUE_GOAL_WORKFLOW
            ? 'goal tree'
            : 'other',
      workflowType: description.type,
      execution: description.status.name,
      taskQueue: description.taskQueue,
      parentWorkflowId: description.parentExecution?.workflowId ?? undefined,
    };
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new UnknownWorkflowError(workflowId);
    throw err;
  }
}

/**
 * The command that takes a workflow of this kind, as a sentence: "goal-1 is a goal tree: use
 * `waveloop tree goal-1`." (an agent run: `waveloop show`).
 */
export function useInstead(workflow: IdentifiedWorkflow): string {
  const id = workflow.workflowId;
  if (workflow.kind === 'goal tree') return `${id} is a goal tree: use \`waveloop tree ${id}\`.`;
  if (workflow.kind === 'agent run')
    return `${id} is an agent run: use \`waveloop show ${id}\` or \`waveloop status ${id}\`.`;
  return `${id} is a ${workflow.workflowType} workflow, not a waveloop run or goal tree.`;
}

/** A workflow handed to something that takes the other kind; the message says which command takes it. */
export class WrongWorkflowKindError extends Error {
  override readonly name = 'WrongWorkflowKindError';

  constructor(readonly workflow: IdentifiedWorkflow) {
    super(useInstead(workflow));
  }
}

/** Identifies `workflowId` and throws a `WrongWorkflowKindError` saying what it is unless it is of `kind`. */
export async function requireKind(
  client: WaveloopClient,
  workflowId: string,
  kind: WorkflowKind,
): Promise<IdentifiedWorkflow> {
  const workflow = await identifyWorkflow(client, workflowId);
  if (workflow.kind !== kind) throw new WrongWorkflowKindError(workflow);
  return workflow;
}

/**
 * How a workflow that has ended ended, in one word: an agent run's own status (`completed`,
 * `cancelled`, `max_iterations`, …) or a goal tree's (`achieved`, …) when it returned a result,
 * else Temporal's (`failed`, `terminated`, `timed_out`, `cancelled`).
 */
export async function endedStatus(client: WaveloopClient, workflow: IdentifiedWorkflow): Promise<string> {
  if (workflow.execution === 'COMPLETED' && workflow.kind !== 'other') {
    try {
      const result = (await client.runs.handle(workflow.workflowId).result()) as AgentLoopResult | GoalResult;
      return result.status;
    } catch (err) {
      if (!(err instanceof WorkflowFailedError)) throw err;
    }
  }
  return workflow.execution.toLowerCase();
}
