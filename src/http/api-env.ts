import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AuditStore } from '../audit/store';
import type { WaveloopClient } from '../client/waveloop-client';
import type { Person } from '../contract/people/people';
import { ErrorSchema, JsonObjectSchema } from './schemas';

/** What each request of the API carries: `person`, whose token it came with (who starts and decides). */
export type HttpEnv = { Variables: { person: Person } };

/** The API app, to which each `*-routes.ts` adds its routes. */
export type Api = OpenAPIHono<HttpEnv>;

/** What the routes need: the client, and where to log what a caller is not shown. */
export interface RouteDeps {
  client: WaveloopClient;
  /** The audit store, where refused decisions are recorded (and the Decided view reads); none: not recorded. */
  audit?: AuditStore;
  log: (line: string) => void;
}

/** An OpenAPI response with a JSON body that `schema` describes. */
export function jsonOf<S>(description: string, schema: S) {
  return { description, content: { 'application/json': { schema } } };
}

/** An OpenAPI response with a JSON body its description says (its type is in the library). */
export function json(description: string) {
  return jsonOf(description, JsonObjectSchema);
}

/** The error responses a route may give, for its OpenAPI description. */
export function errors(...statuses: Array<400 | 403 | 404 | 409 | 503>) {
  const words = {
    400: 'bad body or query',
    403: 'the person may not make this decision (not an approver, or four eyes)',
    404: 'unknown run or call',
    409: 'the run ended, or the call is not waiting',
    503: 'no worker serves the run',
  };
  return Object.fromEntries(statuses.map((status) => [status, jsonOf(words[status], ErrorSchema)]));
}

/** A JSON request body, required. */
export function body<S>(schema: S) {
  return { body: { content: { 'application/json': { schema } }, required: true } };
}
