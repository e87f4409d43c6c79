import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The bearer tokens of `waveloop serve`: each names the person (or service) that holds it, and that
 * name is who decides (`by`) when a request with it approves, denies or answers.
 */

/** A token and the name of who holds it. */
export interface HttpToken {
  name: string;
  token: string;
}

/**
 * The tokens of `WAVELOOP_HTTP_TOKENS`: `name:token` pairs separated by commas (a token may hold
 * colons; the name is what comes before the first). Throws a `TypeError` that says which pair is
 * wrong: an empty name or token, a name given twice, or one token given to two names (which would
 * make who decided ambiguous).
 */
export function parseTokens(text: string): HttpToken[] {
  const tokens = text
    .split(',')
    .map((pair) => pair.trim())
    .filter(Boolean)
    .map((pair, i) => {
      const colon = pair.indexOf(':');
      const name = colon < 0 ? '' : pair.slice(0, colon).trim();
      const token = colon < 0 ? '' : pair.slice(colon + 1).trim();
      if (!name || !token) throw new TypeError(`WAVELOOP_HTTP_TOKENS: pair ${i + 1} is not name:token.`);
      return { name, token };
    });
  const names = tokens.map((t) => t.name);
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice) throw new TypeError(`WAVELOOP_HTTP_TOKENS: the name ${twice} is given twice.`);
  const shared = tokens.findIndex((t, i) => tokens.findIndex((u) => u.token === t.token) !== i);
  if (shared >= 0) {
    const first = tokens.find((t) => t.token === tokens[shared]!.token)!;
    throw new TypeError(
      `WAVELOOP_HTTP_TOKENS: ${first.name} and ${tokens[shared]!.name} share one token; give each their own.`,
    );
  }
  return tokens;
}

/** A fresh random token (32 bytes, base64url), for a server started without any. */
export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Checks `Authorization: Bearer <token>` against `tokens`: the name of the token's holder, else
 * undefined. Every token is compared, each by its SHA-256 digest with `timingSafeEqual`, so how long
 * the check takes says nothing about how much of a token was right.
 */
export function authenticate(header: string | undefined, tokens: readonly HttpToken[]): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match ? authenticateToken(match[1]!, tokens) : undefined;
}

/** The name of the holder of `token` (compared as `authenticate` does), else undefined. */
export function authenticateToken(token: string, tokens: readonly HttpToken[]): string | undefined {
  const given = digest(token);
  let holder: string | undefined;
  for (const { name, token } of tokens) {
    if (timingSafeEqual(given, digest(token)) && holder === undefined) holder = name;
  }
  return holder;
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
