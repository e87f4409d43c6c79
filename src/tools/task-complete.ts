import { z } from 'zod';
import { defineTool } from './define';

/**
 * `task_complete`: the loop-breaking tool. The workflow ends the task when the model calls it and
 * uses `result` as the final answer; `execute` only returns `result`, a JSON value as JSON text (a run
 * with an output schema takes either a JSON string or the value itself).
 */
export function taskCompleteTool() {
  return defineTool({
    name: 'task_complete',
    description:
      'Call this once the task is finished. Calling it ends the task immediately and `result` becomes the final ' +
      'answer shown to the user, so write it in full (what was found or changed). Do not call other tools after it.',
    parameters: z.object({
      result: z
        .union([z.string().min(1), z.record(z.string(), z.unknown()), z.array(z.unknown())])
        .describe('The final answer for the user: text, or a JSON value when the answer must have a JSON shape.'),
    }),
    loopBreaking: true,
    effect: 'read',
    execute: ({ result }): string => (typeof result === 'string' ? result : JSON.stringify(result)),
  });
}
