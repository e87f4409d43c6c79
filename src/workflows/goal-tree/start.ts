import { ActivityFailure, ApplicationFailure, proxyActivities, workflowInfo } from '@temporalio/workflow';
import { RESOLVE_RUN_ACTIVITY_OPTIONS } from '../../contract/activity-options';
import { temporalPriority, withPriority } from '../../contract/flow/priority';
import type { GoalTreeActivities } from '../../contract/goal-tree/activities';
import { goalWorkflowId } from '../../contract/goal-tree/ids';
import type { GoalInput, GoalNode } from '../../contract/goal-tree/pursue-goal';
import type { TreeSettings } from '../../contract/settings/resolve';
import { lazy } from '../lazy';

/**
 * How a goal starts: from its input, and its node (where it is in the tree, what it pursues, its
 * share of the budgets). A sub-goal gets both from its parent; the root validates its input and
 * settles the node for the whole tree.
 */

const { resolveGoal } = proxyActivities<GoalTreeActivities>(RESOLVE_RUN_ACTIVITY_OPTIONS);

/**
 * The goal's input: a sub-goal's as its parent built it, from the parent's validated input and the
 * model's validated sub-goal, recognised by the parent's workflow id, which the node's path names.
 * That is not validated again, so a tree's children load no zod (src/workflows/lazy.ts); any other
 * input is, and what is wrong fails the workflow as a non-retryable `InvalidInput`.
 */
export function goalInput(rawInput: unknown): GoalInput {
  const parent = workflowInfo().parent;
  const node = (rawInput as Partial<GoalInput> | null)?.node;
  const fromParent =
    parent &&
    typeof node === 'object' &&
    node !== null &&
    typeof node.rootId === 'string' &&
    Array.isArray(node.path) &&
    node.path.length > 0 &&
    parent.workflowId === goalWorkflowId(node.rootId, node.path.slice(0, -1));
  return fromParent ? (rawInput as GoalInput) : lazy.goalContract().parseGoalInput(rawInput);
}

/**
 * The root's node: the model, its price and the tools, settled once for the tree (`resolveGoal`;
 * a misconfiguration fails the tree at once), and the tree-wide budgets from its `settings` (the
 * input's, resolved with the tree's defaults), its deadline counted from the run's start.
 */
export async function rootNode(
  input: GoalInput,
  settings: TreeSettings,
): Promise<{ node: GoalNode; webhooks: string[] }> {
  let resolved;
  try {
    resolved = await resolveGoal.executeWithOptions(
      { ...RESOLVE_RUN_ACTIVITY_OPTIONS, summary: 'resolve model and tools', ...withPriority(temporalPriority(input)) },
      [
        {
          model: input.model,
          tools: input.tools,
          ...(input.agent ? { agent: input.agent } : {}),
          ...(input.webhooks ? { webhooks: input.webhooks } : {}),
        },
      ],
    );
  } catch (err) {
    const cause = err instanceof ActivityFailure ? err.cause : err;
    if (cause instanceof ApplicationFailure && cause.nonRetryable) {
      throw ApplicationFailure.create({
        type: cause.type ?? undefined,
        message: cause.message,
        nonRetryable: true,
        cause,
      });
    }
    throw err;
  }
  const info = workflowInfo();
  const { webhooks = [], ...settled } = resolved;
  const node: GoalNode = {
    rootId: info.workflowId,
    path: [],
    goal: input.goal,
    stack: [],
    evidence: [],
    others: [],
    budget: {
      goals: settings.maxGoals,
      deadlineMs: info.runStartTime.getTime() + settings.timeoutSeconds * 1000,
      tokens: settings.maxTokens,
      costUsd: settings.maxCostUsd,
    },
    ...settled,
  };
  return { node, webhooks };
}
