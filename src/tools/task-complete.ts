import { z } from 'zod';
import { defineTool } from './define';

/**
 * `task_complete`: the loop-breaking tool. The workflow ends the task when the model calls it and
 * uses `result` as the final answer; `execute` only returns `result` (it is never run as an activity).
 */
export function taskCompleteTool() {
  return defineTool({
    name: 'task_complete',
    description:
      'Call this once the task is finished. Calling it ends the task immediately and `result` becomes the final ' +
      'answer shown to the user, so write it in full (what was found or changed). Do not call other tools after it.',
    parameters: z.object({
      result: z.string().min(1).describe('The final answer for the user.'),
    }),
    loopBreaking: true,
    execute: ({ result }): string => result,
  });
}
