import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { People, Person } from '../contract/people/people';

/**
 * The bearer tokens of `waveloop serve`: each belongs to one person of the people directory
 * (docs/security.md), who is who decides (`by`) when a request with it approves, denies or answers,
 * and who starts a run it starts. The directory keeps only each token's SHA-256.
 */

/** A fresh random token (32 bytes, base64url: no `:`, `,` or `+`), for a server started without people. */
export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Checks `Authorization: Bearer <token>` against the people: the token's person, else undefined.
 * Every person's digest is compared with `timingSafeEqual`, so how long the check takes says
 * nothing about how much of a token was right.
 */
export function authenticate(header: string | undefined, people: People): Person | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match ? authenticateToken(match[1]!, people) : undefined;
}

/** The person whose token `token` is (compared as `authenticate` does), else undefined. */
export function authenticateToken(token: string, people: People): Person | undefined {
  const given = createHash('sha256').update(token).digest();
  let holder: Person | undefined;
  for (const person of people.list()) {
    if (timingSafeEqual(given, Buffer.from(person.tokenSha256, 'hex')) && holder === undefined) holder = person;
  }
  return holder;
}
