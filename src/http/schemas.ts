import { z } from 'zod';
import { AgentLoopInputSchema, RUN_STATES } from '../contract/agent-loop';
import { GoalTreeInputSchema } from '../contract/goal-tree/pursue-goal';

/**
 * The HTTP API's request and response bodies. Starting a run or a goal tree takes the contract's own
 * schemas (`AgentLoopInputSchema`, `GoalTreeInputSchema`) plus a `workflowId`; the OpenAPI document
 * at `GET /api/openapi.json` is generated from these.
 */

const WorkflowIdSchema = z.string().trim().min(1).max(255);

/** `POST /api/runs`: the `agentLoop` input, and the run's workflow id if the caller chooses it. */
export const StartRunBodySchema = AgentLoopInputSchema.extend({ workflowId: WorkflowIdSchema.optional() });

/** `POST /api/goals`: the `pursueGoal` input, and the tree's workflow id if the caller chooses it. */
export const StartGoalBodySchema = GoalTreeInputSchema.extend({ workflowId: WorkflowIdSchema.optional() });

/** What a start answers (201). */
export const StartedSchema = z.object({ workflowId: z.string(), runId: z.string() });

/** `POST /api/runs/{id}/approvals/{callId}`: approve (with edited `args`, maybe) or deny (with a `reason`). */
export const ApprovalBodySchema = z
  .strictObject({
    approve: z.boolean(),
    reason: z.string().max(10_000).optional(),
    args: z.record(z.string(), z.unknown()).optional(),
  })
  .refine((body) => body.approve || body.args === undefined, {
    message: 'args go with an approval only',
    path: ['args'],
  });

/** `POST /api/runs/{id}/answers/{callId}`. */
export const AnswerBodySchema = z.strictObject({ answer: z.string().trim().min(1, 'answer must not be empty') });

/** `POST /api/runs/{id}/messages`. */
export const MessageBodySchema = z.strictObject({ text: z.string().trim().min(1, 'text must not be empty') });

/** `GET /api/runs`: the query. */
export const ListQuerySchema = z.strictObject({
  status: z.enum(RUN_STATES).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
  cursor: z.string().min(1).optional(),
});

/** `GET /api/decided`: whose decisions, of which tool, in which run; the newest `limit` (default 200). */
export const DecidedQuerySchema = z.strictObject({
  person: z.string().trim().min(1).optional(),
  tool: z.string().trim().min(1).optional(),
  run: z.string().trim().min(1).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
});

/** `GET /api/runs/{id}/events`: `stream=true` adds the model's reply as it streams. */
export const EventsQuerySchema = z.strictObject({ stream: z.enum(['true', 'false']).optional() });

export const RunParamsSchema = z.object({ id: z.string().min(1) });
export const CallParamsSchema = z.object({ id: z.string().min(1), callId: z.string().min(1) });

/** Every error: `{ "error": { "code", "message" } }`. */
export const ErrorSchema = z.object({ error: z.object({ code: z.string(), message: z.string() }) });

/** A JSON value the OpenAPI document describes in words: its TypeScript type is in the library (`RunStatusReport`, `PendingDecision`, `GoalTreeNode`, …). */
export const JsonObjectSchema = z.any();
