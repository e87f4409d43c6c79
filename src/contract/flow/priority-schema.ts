import { z } from 'zod';
import { MAX_FAIRNESS_KEY_BYTES } from './priority';

/** The priority fields of a run's or a goal tree's input (`PriorityFields`), checked at the edge. */
export const PriorityFieldsShape = {
  /** 1 (first) to 5 (last); default 3. Lower numbers are dispatched first from every task queue the run uses. */
  priority: z
    .number({ error: 'priority must be a whole number from 1 (first) to 5 (last)' })
    .int('priority must be a whole number from 1 (first) to 5 (last)')
    .min(1, 'priority must be a whole number from 1 (first) to 5 (last)')
    .max(5, 'priority must be a whole number from 1 (first) to 5 (last)')
    .optional(),
  /** Runs with different keys (tenants) share the task queues in proportion to their weights. At most 64 bytes. */
  fairnessKey: z
    .string()
    .min(1, 'fairnessKey must not be empty')
    .refine(
      (key) => new TextEncoder().encode(key).length <= MAX_FAIRNESS_KEY_BYTES,
      `fairnessKey must be at most ${MAX_FAIRNESS_KEY_BYTES} bytes (UTF-8)`,
    )
    .optional(),
  /** The fairness key's share, 0.001 to 1,000 (default 1). */
  fairnessWeight: z
    .number()
    .min(0.001, 'fairnessWeight must be from 0.001 to 1000')
    .max(1_000, 'fairnessWeight must be from 0.001 to 1000')
    .optional(),
};
