import { lookup } from 'node:dns/promises';
import { createRoute, z } from '@hono/zod-openapi';
import { pendingOf } from '../client/pending';
import { UndoRefusedError } from '../client/undo';
import { runWebhookRefusal } from '../contract/webhooks/allow';
import type { Api, RouteDeps } from './api-env';
import { body, errors, json, jsonOf } from './api-env';
import { HttpError } from './errors';
import { runEventStream } from './run-events';
import { requireRunning } from './run-state';
import { EventsQuerySchema, ListQuerySchema, RunParamsSchema, StartedSchema, StartRunBodySchema } from './schemas';
import { starter } from './starter';

/** What the start routes check a run's webhooks against: `WAVELOOP_WEBHOOK_ALLOW` (`createHttpApp({ webhookAllow })`). */
export type StartDeps = RouteDeps & { webhookAllow: readonly string[] };

/**
 * A 400 (`HttpError`) naming each webhook of a run's or goal tree's input that
 * `WAVELOOP_WEBHOOK_ALLOW` does not allow or that points at a non-public address, its host's every
 * address resolved here (`runWebhookRefusal`); nothing is started then. A host that does not
 * resolve is refused too: its addresses cannot be checked. The worker checks again (`resolveRun`).
 */
export async function refuseRunWebhooks(urls: readonly string[] | undefined, allow: readonly string[]): Promise<void> {
  const refusals = await Promise.all(
    (urls ?? []).map((url) =>
      runWebhookRefusal(url, allow, async (host) =>
        (await lookup(host, { all: true, verbatim: true })).map((answer) => answer.address),
      ).catch((err: Error) => `The webhook ${url} is refused: its host does not resolve (${err.message}).`),
    ),
  );
  const refused = refusals.filter((refusal): refusal is string => refusal !== undefined);
  if (refused.length) throw new HttpError(400, 'bad_request', refused.join(' '));
}

/** What `POST /api/runs/{id}/undo` takes: as `waveloop undo`'s options. */
const UndoBodySchema = z.strictObject({
  toIteration: z.number().int().min(0).optional(),
  dryRun: z.boolean().optional(),
  skipIrreversible: z.boolean().optional(),
  wait: z.boolean().optional(),
});

/** The routes of agent runs: start, list, read, follow (SSE), what they changed, undo, cancel. */
export function addRunRoutes(app: Api, { client, webhookAllow }: StartDeps): void {
  const { runs } = client;

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/runs',
      summary: 'Start an agent run',
      request: body(StartRunBodySchema),
      description:
        'A webhook of the body that `WAVELOOP_WEBHOOK_ALLOW` does not allow, or at a loopback, link-local or private address, is a 400, and nothing starts.',
      responses: { 201: jsonOf('started', StartedSchema), ...errors(400, 409) },
    }),
    async (c) => {
      const { workflowId, ...input } = c.req.valid('json');
      await refuseRunWebhooks(input.webhooks, webhookAllow);
      const handle = await runs.start(
        { ...input, startedBy: starter(c.get('person'), input.startedBy) },
        { workflowId },
      );
      return c.json({ workflowId: handle.workflowId, runId: handle.firstExecutionRunId }, 201);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/runs',
      summary: 'The newest runs and goal trees, a page at a time (as `waveloop list`)',
      request: { query: ListQuerySchema },
      responses: { 200: json('`{ runs, cursor? }`: pass `cursor` for the next page'), ...errors(400) },
    }),
    async (c) => c.json(await runs.listPage(c.req.valid('query')), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/runs/{id}',
      summary: "A run's status, the decisions it waits for and, once ended, its result",
      request: { params: RunParamsSchema },
      responses: { 200: json('the run'), ...errors(404) },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      const report = await runs.status(id);
      const status = report.progress?.status ?? report.result?.status ?? report.execution.toLowerCase();
      const pending = report.progress ? pendingOf({ workflowId: id }, report.progress) : [];
      return c.json({ ...report, status, pending }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/runs/{id}/events',
      summary: 'What the run shows live, as Server-Sent Events; reconnect with Last-Event-ID',
      request: { params: RunParamsSchema, query: EventsQuerySchema },
      responses: {
        200: { description: 'the events', content: { 'text/event-stream': { schema: { type: 'string' } } } },
        204: { description: 'the run has ended and Last-Event-ID was its end: nothing more will come' },
        ...errors(404),
      },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      await runs.handle(id).describe();
      const lastEventId = c.req.header('last-event-id');
      return runEventStream(c, runs, id, { lastEventId, stream: c.req.valid('query').stream === 'true' });
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/runs/{id}/effects',
      summary:
        "What the run (or a goal tree's tool loops) changed: its calls of tools that are not read-only (as `waveloop effects`)",
      request: { params: RunParamsSchema },
      responses: { 200: json('`{ workflowId, kind, effects, unread? }`'), ...errors(404) },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      try {
        return c.json(await client.effects(id), 200);
      } catch (err) {
        // A workflow that is neither an agent run nor a goal tree has no ledger.
        if (err instanceof TypeError) throw new HttpError(404, 'not_found', err.message);
        throw err;
      }
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/runs/{id}/cancel',
      summary: 'Request cancellation of a run (or a goal tree)',
      request: { params: RunParamsSchema },
      responses: { 202: json('cancellation requested'), ...errors(404, 409) },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      await requireRunning(runs, id);
      await runs.cancel(id);
      return c.json({ workflowId: id, cancelRequested: true }, 202);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/runs/{id}/undo',
      summary:
        "Undo what an ended run changed, later calls first, by each tool's undo, and answer once it has finished (as `waveloop undo`)",
      description:
        'The body takes `toIteration` (undo only the calls of later iterations), `dryRun`, `skipIrreversible` and `wait` (`false`: answer 202 once the undo has started, with `running: true` and what it is to undo). The undo is made by the person of the token; the undo of a call that waited for approval waits for approval too, listed in `GET /api/pending` under `undo:<run>`. A run still running, or one an undo is running for, is a 409; no worker polling the task queue, a 503.',
      request: { params: RunParamsSchema, ...body(UndoBodySchema) },
      responses: {
        200: json(
          '`{ workflowId, undoId?, by, dryRun, undone, cannotUndo, failed, denied, notReached, stoppedAt?, alreadyUndone, undoneSoFar }`',
        ),
        202: json('the undo started and runs on (`wait: false`): `{ …, undoId, running: true }`'),
        ...errors(400, 404, 409, 503),
      },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      try {
        const report = await client.undo(id, { ...c.req.valid('json'), by: c.get('person').name });
        return report.running ? c.json(report, 202) : c.json(report, 200);
      } catch (err) {
        if (err instanceof UndoRefusedError)
          throw err.reason === 'no_worker'
            ? new HttpError(503, 'no_worker', err.message)
            : new HttpError(409, 'conflict', err.message);
        throw err;
      }
    },
  );
}
