import type { Priority } from '@temporalio/common';

/**
 * A run's place in the task queues as `waveloop list` and `status` show it: its priority (3 when it
 * sets only a fairness key, Temporal's default), then its fairness key and weight, `2 · acme ×2.5`;
 * `–` when it was started without one.
 */
export function renderPriority(priority: Priority | undefined): string {
  if (!priority) return '–';
  const { priorityKey, fairnessKey, fairnessWeight } = priority;
  return `${priorityKey ?? 3}${fairnessKey ? ` · ${fairnessKey}` : ''}${fairnessWeight ? ` ×${fairnessWeight}` : ''}`;
}
