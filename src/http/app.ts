import { OpenAPIHono } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { html } from 'hono/html';
import { HTTPException } from 'hono/http-exception';
import type { AuditStore } from '../audit/store';
import type { WaveloopClient } from '../client/waveloop-client';
import { describeIssues } from '../contract/issues';
import type { People } from '../contract/people/people';
import type { HttpEnv } from './api-env';
import { addDecisionRoutes } from './decision-routes';
import { HttpError, toHttpError } from './errors';
import { addGoalRoutes } from './goal-routes';
import { FAVICON_SVG, pageHeaders } from './page-headers';
import { layout } from './page/layout';
import { addPageRoutes } from './page/routes';
import { signInView } from './page/sign-in-view';
import { addRunRoutes } from './run-routes';
import { callerOf, mayDo, startSession } from './session';
import { authenticateToken } from './tokens';

/** The largest request body `waveloop serve` takes, by default: 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** What the API app is made of. */
export interface HttpAppOptions {
  /** The client every route works through: its task queue is where runs start. */
  client: WaveloopClient;
  /** Who may call: each request needs `Authorization: Bearer <token>` of one of them (or the inbox's cookie). */
  people: People;
  /** The one browser origin allowed to call (CORS); none by default. */
  cors?: string;
  /** The largest request body, in bytes (default `DEFAULT_MAX_BODY_BYTES`); a larger one is 413. */
  maxBodyBytes?: number;
  /** Where errors the caller is not shown go (a 500's cause); stderr by default. Tokens never reach it. */
  log?: (line: string) => void;
  /** The agents the inbox page's "Start a run" offers (default: a free field). */
  agents?: readonly string[];
  /** The page of run `workflowId` in the Temporal Web UI, when its address is known. */
  webUi?: (workflowId: string) => string;
  /** The audit store: refused decisions are recorded in it, and the inbox's Decided view reads it. */
  audit?: AuditStore;
  /**
   * `WAVELOOP_WEBHOOK_ALLOW`: the webhooks a run or goal tree started here may name (default none);
   * one it does not allow, or one at a non-public address, is a 400 and nothing starts
   * (docs/webhooks.md#what-a-run-may-name). The workers check it too: give both the same list.
   */
  webhookAllow?: readonly string[];
}

/**
 * The HTTP API of `waveloop serve` (docs/http-api.md) and its web inbox (docs/inbox.md), as a Hono
 * app: every `/api` route behind a bearer token (or the inbox's session cookie, to read), bodies and queries checked with zod (400 saying what is wrong), bodies at most
 * `maxBodyBytes` (413), every error as `{ "error": { "code", "message" } }` without a stack or
 * Temporal's gRPC text, and the OpenAPI document at `GET /api/openapi.json`.
 */
export function createHttpApp({
  client,
  people,
  cors: origin,
  maxBodyBytes = DEFAULT_MAX_BODY_BYTES,
  log = (line) => process.stderr.write(`${line}\n`),
  agents = [],
  webUi,
  audit,
  webhookAllow = [],
}: HttpAppOptions): OpenAPIHono<HttpEnv> {
  const fail = (err: HttpError) =>
    new Response(JSON.stringify(err.body()), {
      status: err.status,
      headers: { 'content-type': 'application/json', ...(err.status === 401 ? { 'www-authenticate': 'Bearer' } : {}) },
    });
  const app = new OpenAPIHono<HttpEnv>({
    defaultHook: (result) => {
      if (!result.success)
        return fail(
          new HttpError(
            400,
            'bad_request',
            `Invalid ${result.target}: ${describeIssues(result.error.issues, result.target)}`,
          ),
        );
    },
  });
  app.use('*', pageHeaders);
  // The icon is public, as the assets are: a browser asks for it without the session.
  app.get('/favicon.ico', (c) =>
    c.body(FAVICON_SVG, 200, { 'content-type': 'image/svg+xml', 'cache-control': 'public, max-age=86400' }),
  );
  if (origin)
    app.use('/api/*', cors({ origin, allowHeaders: ['Authorization', 'Content-Type', 'Last-Event-ID'], maxAge: 600 }));
  app.use('*', async (c, next) => {
    if (c.req.path.startsWith('/assets/')) return next();
    const api = c.req.path.startsWith('/api/');
    const given = api || c.req.method !== 'GET' ? undefined : c.req.query('token');
    if (given !== undefined) {
      // The address `serve` printed: the token goes into the session cookie and out of the address bar.
      if (authenticateToken(given, people) === undefined) return c.html(layout('Sign in', signInView(true)), 401);
      startSession(c, given);
      const url = new URL(c.req.url);
      url.searchParams.delete('token');
      return c.redirect(`${url.pathname}${url.search}`, 303);
    }
    const caller = callerOf(c, people);
    if (caller === undefined || !mayDo(c, caller)) {
      if (!api) return c.html(layout('Sign in', signInView(false)), 401);
      return fail(
        new HttpError(401, 'unauthorized', 'Send Authorization: Bearer <token>, a token waveloop serve knows.'),
      );
    }
    c.set('person', caller.person);
    await next();
  });
  app.use(
    '*',
    bodyLimit({
      maxSize: maxBodyBytes,
      onError: () => fail(new HttpError(413, 'payload_too_large', `The body is larger than ${maxBodyBytes} bytes.`)),
    }),
  );
  const deps = { client, log, ...(audit ? { audit } : {}) };
  addRunRoutes(app, { ...deps, webhookAllow });
  addDecisionRoutes(app, deps);
  addGoalRoutes(app, { ...deps, webhookAllow });
  addPageRoutes(app, { ...deps, agents, ...(webUi ? { webUi } : {}) });
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer' });
  app.doc31('/api/openapi.json', {
    openapi: '3.1.0',
    info: {
      title: 'waveloop',
      version: '1',
      description: 'Start, follow and decide durable agent runs (docs/http-api.md).',
    },
    security: [{ bearer: [] }],
  });
  app.notFound((c) =>
    c.req.path.startsWith('/api/')
      ? fail(new HttpError(404, 'not_found', 'No such route.'))
      : c.html(
          layout(
            'Not found',
            html`<h1>Not found</h1>
              <p><a href="/">Waiting now</a></p>`,
          ),
          404,
        ),
  );
  app.onError((err, c) => {
    const error =
      err instanceof HTTPException
        ? new HttpError(
            err.status === 413 ? 413 : 400,
            err.status === 413 ? 'payload_too_large' : 'bad_request',
            err.message || 'Bad request.',
          )
        : toHttpError(err, log);
    if (c.req.path.startsWith('/api/')) return fail(error);
    return c.html(
      layout(
        'Error',
        html`<h1>That did not work</h1>
          <p class="error">${error.message}</p>`,
      ),
      error.status,
    );
  });
  return app;
}
