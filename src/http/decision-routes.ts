import { createRoute } from '@hono/zod-openapi';
import { z } from 'zod';
import { OUTCOME_CHOICES } from '../contract/effects/outcome';
import type { Api, RouteDeps } from './api-env';
import { body, errors, json, jsonOf } from './api-env';
import { answerQuestion, decideApproval, endConversation, sendMessage, settleOutcome } from './decisions';
import { HttpError } from './errors';
import { DECIDED_LIMIT, decidedQuery } from './page/decided-view';
import {
  AnswerBodySchema,
  ApprovalBodySchema,
  CallParamsSchema,
  DecidedQuerySchema,
  ErrorSchema,
  JsonObjectSchema,
  MessageBodySchema,
  RunParamsSchema,
} from './schemas';

/** `POST /api/runs/{id}/outcomes/{callId}`: it happened (with the result the model reads), run it again, or give up. */
const OutcomeBodySchema = z
  .strictObject({
    choice: z.enum(OUTCOME_CHOICES),
    result: z.string().max(100_000).optional(),
  })
  .refine((body) => body.choice === 'happened' || body.result === undefined, {
    message: 'a result goes with the choice "happened" only',
    path: ['result'],
  });

/**
 * The routes of what people decide: the pending list, approvals (with edited arguments) and
 * denials, the outcomes of calls that may or may not have run, answers, a conversation's messages and its end, and what was decided (the audit trail's). Each decision is recorded as made `by`
 * the name of the request's token.
 */
export function addDecisionRoutes(app: Api, { client, audit }: RouteDeps): void {
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
      method: 'get',
      path: '/api/decided',
      summary: "The audit trail's decisions and refused attempts, newest first, by `person`, `tool` and `run`",
      request: { query: DecidedQuerySchema },
      responses: {
        200: jsonOf('the `decision` and `decision_refused` records, newest first', z.array(JsonObjectSchema)),
        400: jsonOf('bad query', ErrorSchema),
        404: jsonOf('the server keeps no audit trail', ErrorSchema),
      },
    }),
    async (c) => {
      if (!audit)
        throw new HttpError(404, 'not_found', 'This server keeps no audit trail: it has no decisions to list.');
      const { limit = DECIDED_LIMIT, ...filter } = c.req.valid('query');
      return c.json((await audit.list(decidedQuery(filter, limit))).reverse(), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/runs/{id}/approvals/{callId}',
      summary: 'Approve (with edited `args`, maybe) or deny (with a `reason`) a call that waits',
      request: { params: CallParamsSchema, ...body(ApprovalBodySchema) },
      responses: {
        200: json(
          '`{ callId, tool, decided, approvals, quorum }`: `decided` is `waiting` while a quorum lacks approvals',
        ),
        ...errors(400, 403, 404, 409, 503),
      },
    }),
    async (c) => {
      const { id, callId } = c.req.valid('param');
      return c.json(await decideApproval(runs, id, callId, c.req.valid('json'), c.get('person').name, audit), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/runs/{id}/outcomes/{callId}',
      summary:
        'Settle a `write` call that may or may not have run: it `happened` (with its `result`), run it `again`, or `give_up`',
      request: { params: CallParamsSchema, ...body(OutcomeBodySchema) },
      responses: { 200: json('`{ callId, tool, choice }`: settled'), ...errors(400, 403, 404, 409, 503) },
    }),
    async (c) => {
      const { id, callId } = c.req.valid('param');
      return c.json(await settleOutcome(runs, id, callId, c.req.valid('json'), c.get('person').name, audit), 200);
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
      return c.json(await answerQuestion(runs, id, callId, c.req.valid('json').answer), 200);
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
      await sendMessage(runs, id, c.req.valid('json').text);
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
      await endConversation(runs, id);
      return c.json({ workflowId: id, ended: true }, 202);
    },
  );
}
