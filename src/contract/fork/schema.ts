import { z } from 'zod';

/**
 * `AgentLoopInput.fork`: the run starts from the transcript of run `workflowId` (its latest run,
 * else `runId`) up to and including iteration `iteration`'s tool results; `message`, when given,
 * follows as a user message.
 */
export const ForkSchema = z.strictObject({
  workflowId: z.string().trim().min(1, 'fork.workflowId must name the run to fork'),
  runId: z.string().trim().min(1).optional(),
  iteration: z
    .number({ error: 'fork.iteration must be a whole number of at least 1' })
    .int('fork.iteration must be a whole number of at least 1')
    .min(1, 'fork.iteration must be at least 1 (iterations count from 1, as `waveloop show` numbers them)'),
  message: z.string().trim().min(1).max(100_000).optional(),
});
export type ForkInput = z.infer<typeof ForkSchema>;
