import { OpenAPIHono } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { HTTPException } from 'hono/http-exception';
import type { WaveloopClient } from '../client/waveloop-client';
import { describeIssues } from '../contract/issues';
import type { HttpEnv } from './api-env';
import { addDecisionRoutes } from './decision-routes';
import { HttpError, toHttpError } from './errors';
import { addGoalRoutes } from './goal-routes';
import { addRunRoutes } from './run-routes';
import { authenticate, type HttpToken } from './tokens';

/** The largest request body `waveloop serve` takes, by default: 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** What the API app is made of. */
export interface HttpAppOptions {
  /** The client every route works through: its task queue is where runs start. */
  client: WaveloopClient;
  /** Who may call: each request needs `Authorization: Bearer <token>` of one of them. */
  tokens: readonly HttpToken[];
  /** The one browser origin allowed to call (CORS); none by default. */
  cors?: string;
  /** The largest request body, in bytes (default `DEFAULT_MAX_BODY_BYTES`); a larger one is 413. */
  maxBodyBytes?: number;
  /** Where errors the caller is not shown go (a 500's cause); stderr by default. Tokens never reach it. */
  log?: (line: string) => void;
}

/**
 * The HTTP API of `waveloop serve` (docs/http-api.md), as a Hono app: every `/api` route behind a
 * bearer token, bodies and queries checked with zod (400 saying what is wrong), bodies at most
 * `maxBodyBytes` (413), every error as `{ "error": { "code", "message" } }` without a stack or
 * Temporal's gRPC text, and the OpenAPI document at `GET /api/openapi.json`.
 */
export function createHttpApp({
  client,
  tokens,
  cors: origin,
  maxBodyBytes = DEFAULT_MAX_BODY_BYTES,
  log = (line) => process.stderr.write(`${line}\n`),
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
  if (origin)
    app.use('/api/*', cors({ origin, allowHeaders: ['Authorization', 'Content-Type', 'Last-Event-ID'], maxAge: 600 }));
  app.use('/api/*', async (c, next) => {
    const person = authenticate(c.req.header('authorization'), tokens);
    if (person === undefined)
      return fail(
        new HttpError(401, 'unauthorized', 'Send Authorization: Bearer <token>, a token waveloop serve knows.'),
      );
    c.set('person', person);
    await next();
  });
  app.use(
    '/api/*',
    bodyLimit({
      maxSize: maxBodyBytes,
      onError: () => fail(new HttpError(413, 'payload_too_large', `The body is larger than ${maxBodyBytes} bytes.`)),
    }),
  );
  const deps = { client, log };
  addRunRoutes(app, deps);
  addDecisionRoutes(app, deps);
  addGoalRoutes(app, deps);
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
  app.notFound(() => fail(new HttpError(404, 'not_found', 'No such route.')));
  app.onError((err) => {
    if (err instanceof HTTPException) {
      const status = err.status === 413 ? 413 : err.status === 401 ? 401 : 400;
      const code = status === 413 ? 'payload_too_large' : status === 401 ? 'unauthorized' : 'bad_request';
      return fail(new HttpError(status, code, err.message || 'Bad request.'));
    }
    return fail(toHttpError(err, log));
  });
  return app;
}
