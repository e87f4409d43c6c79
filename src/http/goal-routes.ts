import { createRoute } from '@hono/zod-openapi';
import type { Api } from './api-env';
import { body, errors, json, jsonOf } from './api-env';
import { refuseRunWebhooks, type StartDeps } from './run-routes';
import { RunParamsSchema, StartedSchema, StartGoalBodySchema } from './schemas';
import { starter } from './starter';

/** The routes of goal trees: start one, read its tree (as `waveloop tree`). */
export function addGoalRoutes(app: Api, { client, webhookAllow }: StartDeps): void {
  const { goals } = client;

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/goals',
      summary: 'Start a goal tree',
      description:
        'A webhook of the body that `WAVELOOP_WEBHOOK_ALLOW` does not allow, or at a loopback, link-local or private address, is a 400, and nothing starts.',
      request: body(StartGoalBodySchema),
      responses: { 201: jsonOf('started', StartedSchema), ...errors(400, 409) },
    }),
    async (c) => {
      const { workflowId, ...input } = c.req.valid('json');
      await refuseRunWebhooks(input.webhooks, webhookAllow);
      const handle = await goals.start(
        { ...input, startedBy: starter(c.get('person'), input.startedBy) },
        { workflowId },
      );
      return c.json({ workflowId: handle.workflowId, runId: handle.firstExecutionRunId }, 201);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/goals/{id}/tree',
      summary: 'The goal tree, read from the workflow histories (as `waveloop tree`)',
      request: { params: RunParamsSchema },
      responses: { 200: json('the tree: its root node, with its sub-goals'), ...errors(404) },
    }),
    async (c) => c.json(await goals.tree(c.req.valid('param').id), 200),
  );
}
