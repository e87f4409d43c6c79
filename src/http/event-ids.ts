import type { RunEvent } from '../client/follow';

/**
 * The ids of a run's events on `GET /api/runs/{id}/events`. An id names the event by what the run's
 * progress says of it, so any server recomputes it, after a restart too:
 *
 * - `<iteration>.retry.<attempt>`: the model call of `iteration` tried again;
 * - `<iteration>.rate-limit.<attempt>`: that attempt waits for the model's rate limit;
 * - `<iteration>.stream.<attempt>.<length>`: its reply so far (`?stream=true`);
 * - `<iteration>.said`: what the model said;
 * - `<iteration>.call.<callId>`, `<iteration>.approval.<callId>`, `<iteration>.outcome.<callId>`,
 *   `<iteration>.question.<callId>`: a call of the iteration's wave settled, or waits for a person;
 * - `<iteration>.message`: a conversation waits for the next message;
 * - `end`: the run ended (its result).
 *
 * Within an iteration the kinds come in that order (the model call's attempts, each retry before the
 * reply it streams, then `said`, then the wave, then `message`), and iterations in theirs: `isAfter` tells whether an event comes after the
 * one a reconnecting client names in `Last-Event-ID`. A wave's calls and waits happen in an order
 * that progress does not record (a call that waits does not hold the others back): of the named
 * event's own wave every other call and wait is sent again, with the same id, so that nothing is
 * missed; a client drops the ids it has.
 */

/** The rank of each kind within its iteration. */
const RANK = {
  retry: 0,
  'rate-limit': 0,
  stream: 0,
  said: 1,
  call: 2,
  approval: 2,
  outcome: 2,
  question: 2,
  message: 3,
} as const;

type Kind = keyof typeof RANK;

/** An event id, read back: its iteration, kind and what follows (a call id, an attempt). */
interface ParsedId {
  iteration: number;
  kind: Kind | 'end';
  rest: string[];
}

/** The id of `event` (`iteration` of the run for a question, which does not carry its own). */
export function eventId(event: RunEvent, iteration: number): string {
  switch (event.type) {
    case 'said':
      return `${event.iteration}.said`;
    case 'stream':
      return `${event.stream.iteration}.stream.${event.stream.attempt}.${event.stream.length}`;
    case 'call':
      return `${event.iteration}.call.${event.call.id}`;
    case 'approval':
      return `${event.approval.iteration}.approval.${event.approval.callId}`;
    case 'outcome':
      return `${event.outcome.iteration}.outcome.${event.outcome.callId}`;
    case 'question':
      return `${iteration}.question.${event.question.callId}`;
    case 'message':
      return `${event.iteration}.message`;
    case 'retry':
      return `${event.iteration}.retry.${event.attempt}`;
    case 'rate-limit':
      return `${event.iteration}.rate-limit.${event.attempt}`;
    case 'ended':
      return 'end';
  }
}

/** `Last-Event-ID` read back; undefined when it is not an id of this stream (then everything is sent). */
export function parseEventId(id: string | undefined): ParsedId | undefined {
  if (id === undefined) return undefined;
  if (id === 'end') return { iteration: Number.POSITIVE_INFINITY, kind: 'end', rest: [] };
  const [iteration, kind, ...rest] = id.split('.');
  if (!/^\d+$/.test(iteration ?? '') || !(kind! in RANK)) return undefined;
  return { iteration: Number(iteration), kind: kind as Kind, rest };
}

/** Whether the event with id `id` comes after `last` (see the order above), so a client that saw `last` may not have it. */
export function isAfter(id: string, last: ParsedId | undefined): boolean {
  if (!last) return true;
  if (last.kind === 'end') return false;
  if (id === 'end') return true;
  const event = parseEventId(id)!;
  if (event.iteration !== last.iteration) return event.iteration > last.iteration;
  const [rank, lastRank] = [RANK[event.kind as Kind], RANK[last.kind as Kind]];
  if (rank !== lastRank) return rank > lastRank;
  if (rank === RANK.retry) return compare(attemptOf(event), attemptOf(last)) > 0;
  // The wave's calls and waits: every one but the named one (their order is not recorded).
  return id !== [last.iteration, last.kind, ...last.rest].join('.');
}

/**
 * Where a retry, a rate-limit wait or a streamed reply stands among the model call's attempts:
 * (attempt, length), a retry before its wait, the wait before its reply.
 */
function attemptOf({ kind, rest }: ParsedId): [number, number] {
  if (kind === 'retry') return [Number(rest[0]), -2];
  if (kind === 'rate-limit') return [Number(rest[0]), -1];
  return [Number(rest[0]), Number(rest[1])];
}

function compare([a1, b1]: [number, number], [a2, b2]: [number, number]): number {
  return a1 !== a2 ? a1 - a2 : b1 - b2;
}
