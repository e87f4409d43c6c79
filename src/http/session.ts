import type { Context } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import type { People, Person } from '../contract/people/people';
import { authenticate, authenticateToken } from './tokens';

/**
 * How a browser holds its token: the inbox page's URL carries it once (`/?token=…`, as `waveloop
 * serve` prints it), the server keeps it in an HttpOnly, SameSite=Strict cookie and sends the browser
 * on without it. The cookie is what authenticates the page, its forms and its event streams (an
 * `EventSource` cannot send a header). A request of another site never carries it.
 */

/** The cookie that holds a browser's token. */
export const SESSION_COOKIE = 'waveloop_token';

/** Who sent a request, and how: by its `Authorization: Bearer` header, or by the session cookie. */
export interface Caller {
  person: Person;
  via: 'bearer' | 'cookie';
}

/** The caller of `c`: its bearer token's person, else its cookie's; undefined when neither is a known token. */
export function callerOf(c: Context, people: People): Caller | undefined {
  const header = c.req.header('authorization');
  if (header !== undefined) {
    const person = authenticate(header, people);
    return person === undefined ? undefined : { person, via: 'bearer' };
  }
  const cookie = getCookie(c, SESSION_COOKIE);
  const person = cookie === undefined ? undefined : authenticateToken(cookie, people);
  return person === undefined ? undefined : { person, via: 'cookie' };
}

/**
 * Whether the caller may do what the request asks. A cookie reads the API (`GET`, event streams
 * included) and works the pages; a page's form sends `HX-Request: true`, which a form of another
 * site cannot, so a page's `POST` without it is refused. Anything else of the API takes a bearer token.
 */
export function mayDo(c: Context, caller: Caller): boolean {
  if (caller.via === 'bearer' || c.req.method === 'GET' || c.req.method === 'HEAD') return true;
  return !c.req.path.startsWith('/api/') && c.req.header('hx-request') === 'true';
}

/** Keeps `token` in the browser's session cookie (for the whole server, until the browser closes). */
export function startSession(c: Context, token: string): void {
  setCookie(c, SESSION_COOKIE, token, { httpOnly: true, sameSite: 'Strict', path: '/' });
}
