import { proxyActivities } from '@temporalio/workflow';
import { DEFAULT_MODEL_ACTIVITY_OPTIONS } from '../../contract/activity-options';
import { temporalPriority, withPriority, type PriorityFields } from '../../contract/flow/priority';
import type { GoalTreeActivities } from '../../contract/goal-tree/activities';
import type { GoalResult } from '../../contract/goal-tree/pursue-goal';
import { costOf, type ModelPrice } from '../../contract/model/pricing';
import { addUsage } from '../../contract/model/usage';

const { shapeGoalOutput } = proxyActivities<GoalTreeActivities>(DEFAULT_MODEL_ACTIVITY_OPTIONS);

/**
 * The root's result with its typed output: the `shapeGoalOutput` activity writes its report as JSON
 * of the tree's output schema, validated and repaired on the worker (no ajv in workflow code);
 * the result keeps its status and gains `output`, or `outputErrors` when no reply matched. What the
 * model calls used counts in the tree's usage and cost.
 */
export async function withOutput(
  result: GoalResult,
  {
    schema,
    goal,
    model,
    price,
    modelQueue,
    ...fields
  }: {
    schema: Record<string, unknown>;
    goal: string;
    model: string;
    price: ModelPrice | null;
    modelQueue?: string;
  } & PriorityFields,
): Promise<GoalResult> {
  const shaped = await shapeGoalOutput.executeWithOptions(
    {
      ...DEFAULT_MODEL_ACTIVITY_OPTIONS,
      summary: 'shape the output',
      ...withPriority(temporalPriority(fields)),
      ...(modelQueue && { taskQueue: modelQueue }),
    },
    [{ model, goal, schema, result: { status: result.status, report: result.report } }],
  );
  return {
    ...result,
    usage: addUsage(result.usage, shaped.usage),
    costUsd: result.costUsd + costOf(shaped.usage, price),
    ...(shaped.output !== undefined ? { output: shaped.output } : { outputErrors: shaped.outputErrors ?? [] }),
  };
}
