import type { Priority } from '@temporalio/common';

/**
 * A run's place in the task queues (Temporal's Priority API), as its input, its agent or its goal
 * tree gives it: `priority` 1 (first) to 5 (last; default 3), `fairnessKey` (a tenant, say) and its
 * `fairnessWeight`. Free of zod on purpose: workflow code imports it.
 */
export interface PriorityFields {
  priority?: number;
  fairnessKey?: string;
  fairnessWeight?: number;
}

/** The most bytes (UTF-8) of a fairness key: Temporal's limit. */
export const MAX_FAIRNESS_KEY_BYTES = 64;

/** Temporal's `Priority` of `fields`, or undefined when they set nothing (tasks then inherit the workflow's). */
export function temporalPriority(fields: PriorityFields): Priority | undefined {
  const { priority, fairnessKey, fairnessWeight } = fields;
  if (priority === undefined && fairnessKey === undefined && fairnessWeight === undefined) return undefined;
  return {
    ...(priority === undefined ? {} : { priorityKey: priority }),
    ...(fairnessKey === undefined ? {} : { fairnessKey }),
    ...(fairnessWeight === undefined ? {} : { fairnessWeight }),
  };
}

/** `{ priority }` to spread into activity or child workflow options; nothing when the run sets none. */
export function withPriority(priority: Priority | undefined): { priority?: Priority } {
  return priority ? { priority } : {};
}

/** Only the priority fields of `from` that are set, to hand on to a child's input. */
export function priorityFields({ priority, fairnessKey, fairnessWeight }: PriorityFields): PriorityFields {
  return {
    ...(priority === undefined ? {} : { priority }),
    ...(fairnessKey === undefined ? {} : { fairnessKey }),
    ...(fairnessWeight === undefined ? {} : { fairnessWeight }),
  };
}

/** The fields of a Priority that are set (Temporal reports unset ones as 0 or ''), or undefined when none is. */
export function setPriority(priority: Priority | null | undefined): Priority | undefined {
  return temporalPriority({
    priority: priority?.priorityKey || undefined,
    fairnessKey: priority?.fairnessKey || undefined,
    fairnessWeight: priority?.fairnessWeight || undefined,
  });
}
