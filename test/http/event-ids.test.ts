import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/client/follow';
import { eventId, isAfter, parseEventId } from '../../src/http/event-ids';

const call = (iteration: number, id: string): RunEvent => ({
  type: 'call',
  iteration,
  call: { id, tool: 'get_user', args: {}, ok: true, result: '{}' },
});
const stream = (iteration: number, attempt: number, length: number): RunEvent => ({
  type: 'stream',
  stream: { iteration, attempt, length, text: 'x'.repeat(length) } as never,
});

/** Which of `ids` a client that reconnects with `last` gets. */
const after = (ids: string[], last: string) => ids.filter((id) => isAfter(id, parseEventId(last)));

describe('event ids', () => {
  it('name each event by what the progress says of it', () => {
    expect(eventId({ type: 'said', iteration: 2, text: 'Let me look.' }, 2)).toBe('2.said');
    expect(eventId(call(2, 'call_7'), 2)).toBe('2.call.call_7');
    expect(eventId({ type: 'question', question: { callId: 'call_8', question: '?', since: '' } }, 3)).toBe(
      '3.question.call_8',
    );
    expect(eventId({ type: 'retry', iteration: 1, attempt: 2, failure: 'timeout' }, 1)).toBe('1.retry.2');
    expect(eventId(stream(1, 2, 40), 1)).toBe('1.stream.2.40');
    expect(eventId({ type: 'message', iteration: 4, text: 'Hello' }, 4)).toBe('4.message');
  });

  it('a reconnect gets what follows the id: later iterations, later kinds, the rest of its wave', () => {
    const run = [
      '1.retry.2',
      '1.stream.2.10',
      '1.stream.2.30',
      '1.said',
      '1.approval.c1',
      '1.call.c2',
      '1.call.c1',
      '1.message',
      '2.said',
      'end',
    ];
    expect(after(run, '1.stream.2.10')).toEqual(run.slice(2));
    expect(after(run, '1.said')).toEqual(run.slice(4));
    // The wave's calls and waits: every one but the named one (their order is not recorded).
    expect(after(run, '1.call.c2')).toEqual(['1.approval.c1', '1.call.c1', '1.message', '2.said', 'end']);
    expect(after(run, '1.message')).toEqual(['2.said', 'end']);
    expect(after(run, 'end')).toEqual([]);
  });

  it('a retry comes before the reply of its attempt and after the one before', () => {
    expect(after(['1.stream.1.50', '1.retry.2', '1.stream.2.5'], '1.stream.1.50')).toEqual([
      '1.retry.2',
      '1.stream.2.5',
    ]);
    expect(after(['1.stream.1.50', '1.retry.2', '1.stream.2.5'], '1.retry.2')).toEqual(['1.stream.2.5']);
  });

  it("a rate-limit wait comes after its attempt's retry and before that attempt's reply", () => {
    const ids = ['2.retry.2', '2.rate-limit.2', '2.stream.2.10', '2.said'];
    expect(after(ids, '2.retry.2')).toEqual(['2.rate-limit.2', '2.stream.2.10', '2.said']);
    expect(after(ids, '2.rate-limit.2')).toEqual(['2.stream.2.10', '2.said']);
    expect(after(['2.rate-limit.1', '2.rate-limit.2'], '2.stream.1.40')).toEqual(['2.rate-limit.2']);
  });

  it('an id that is not one of the stream sends everything', () => {
    expect(parseEventId('yesterday')).toBeUndefined();
    expect(parseEventId('1.nothing')).toBeUndefined();
    expect(after(['1.said', 'end'], 'yesterday')).toEqual(['1.said', 'end']);
  });
});
