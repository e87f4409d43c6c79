import { createRoute } from '@hono/zod-openapi';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { z } from 'zod';
import type { Api, RouteDeps } from './api-env';
import { body, errors, json, jsonOf } from './api-env';
import { HttpError } from './errors';
import { requireRunning, requireWaiting } from './run-state';
import {
  AnswerBodySchema,
  ApprovalBodySchema,
  CallParamsSchema,
  JsonObjectSchema,
  MessageBodySchema,
  RunParamsSchema,
} from './schemas';

/**
 * The routes of what people decide: the pending list, approvals (with edited arguments) and
 * denials, answers, a conversation's messages and its end. Each decision is recorded as made `by`
 * the name of the request's token.
 */
export function addDecisionRoutes(app: Api, { client }: RouteDeps): void {
  const { runs } = client;

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/pending',
      summary: 'Every decision waiting for a person, oldest first (as `waveloop pending --json`)',
      responses: { 200: jsonOf('the decisions, oldest first', z.array(JsonObjectSchema)) },
    }),
    async (c) => c.json((await runs.pending()).decisions, 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/runs/{id}/approvals/{callId}',
      summary: 'Approve (with edited `args`, maybe) or deny (with a `reason`) a call that waits',
      request: { params: CallParamsSchema, ...body(ApprovalBodySchema) },
      responses: { 200: json('`{ callId, tool }`: decided'), ...errors(400, 404, 409, 503) },
    }),
    async (c) => {
      const { id, callId } = c.req.valid('param');
      const { approve, reason, args } = c.req.valid('json');
      const by = c.get('person');
      await requireWaiting(runs, id, callId, 'approval');
      try {
        const decided = approve
          ? await runs.approve(id, callId, { by, ...(args ? { args } : {}) })
          : await runs.deny(id, callId, { by, ...(reason !== undefined ? { reason } : {}) });
        return c.json(decided, 200);
      } catch (err) {
        // Refused: edited arguments that do not suit the tool leave the call waiting (400); else it was decided meanwhile.
        if (err instanceof WorkflowUpdateFailedError && args) {
          const progress = await runs.progress(id, { quick: true }).catch(() => undefined);
          if (progress?.pendingApprovals.some((call) => call.callId === callId))
            throw new HttpError(400, 'bad_request', `Refused: ${err.cause?.message ?? err.message}`);
        }
        throw err;
      }
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/runs/{id}/answers/{callId}',
      summary: 'Answer the question a run asks (`ask_question`)',
      request: { params: CallParamsSchema, ...body(AnswerBodySchema) },
      responses: { 200: json('`{ callId, question }`: answered'), ...errors(400, 404, 409, 503) },
    }),
    async (c) => {
      const { id, callId } = c.req.valid('param');
      await requireWaiting(runs, id, callId, 'question');
      return c.json(await runs.answer(id, c.req.valid('json').answer), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/runs/{id}/messages',
      summary: "Send a conversation's next message",
      request: { params: RunParamsSchema, ...body(MessageBodySchema) },
      responses: { 202: json('sent'), ...errors(400, 404, 409, 503) },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      await requireRunning(runs, id);
      await runs.send(id, c.req.valid('json').text);
      return c.json({ workflowId: id, sent: true }, 202);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/runs/{id}/end',
      summary: 'End a conversation: the run completes with the last answer',
      request: { params: RunParamsSchema },
      responses: { 202: json('ending'), ...errors(404, 409, 503) },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      await requireRunning(runs, id);
      await runs.end(id);
      return c.json({ workflowId: id, ended: true }, 202);
    },
  );
}
