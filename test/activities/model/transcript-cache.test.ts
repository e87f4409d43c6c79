import { describe, expect, it } from 'vitest';
import { TranscriptCache } from '../../../src/activities/model/transcript-cache';
import type { ChatMessage } from '../../../src/contract/agent-loop';

const start: ChatMessage[] = [
  { role: 'system', content: 'You help.' },
  { role: 'user', content: 'Find Bob.' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'c1', type: 'function', function: { name: 'search_users', arguments: '{"name":"Bob"}' } }],
  },
];
const result: ChatMessage = { role: 'tool', tool_call_id: 'c1', content: '[{"id":2}]' };

describe('TranscriptCache: what a worker keeps between model calls of a run', () => {
  it('joins the messages since the previous reply to the kept transcript', () => {
    const cache = new TranscriptCache();
    cache.remember('wf', 'run', start, 'reply-1');
    expect(cache.join('wf', 'run', { count: 4, from: 3, after: 'reply-1' }, [result])).toEqual([...start, result]);
  });

  it('misses (so the activity asks the workflow) unless run, reply and lengths all match', () => {
    const cache = new TranscriptCache();
    cache.remember('wf', 'run', start, 'reply-1');
    // A reply of an attempt whose result the workflow never recorded.
    expect(cache.join('wf', 'run', { count: 4, from: 3, after: 'reply-0' }, [result])).toBeUndefined();
    // Another run of the workflow (continued as new), another workflow.
    expect(cache.join('wf', 'run-2', { count: 4, from: 3, after: 'reply-1' }, [result])).toBeUndefined();
    expect(cache.join('other', 'run', { count: 4, from: 3, after: 'reply-1' }, [result])).toBeUndefined();
    // Lengths that do not add up.
    expect(cache.join('wf', 'run', { count: 3, from: 2, after: 'reply-1' }, [result])).toBeUndefined();
    expect(cache.join('wf', 'run', { count: 5, from: 3, after: 'reply-1' }, [result])).toBeUndefined();
  });

  it('keeps at most maxRuns runs and maxChars characters, dropping the least recently used', () => {
    const cache = new TranscriptCache({ maxRuns: 2, maxChars: 1_000 });
    cache.remember('a', 'r', start, 'x');
    cache.remember('b', 'r', start, 'x');
    cache.remember('a', 'r', start, 'y'); // a is now the most recent
    cache.remember('c', 'r', start, 'x');
    expect(cache.size).toBe(2);
    expect(cache.join('b', 'r', { count: 3, from: 3, after: 'x' }, [])).toBeUndefined();
    expect(cache.join('a', 'r', { count: 3, from: 3, after: 'y' }, [])).toHaveLength(3);

    const big: ChatMessage[] = [{ role: 'user', content: 'x'.repeat(600) }];
    cache.remember('d', 'r', big, 'x');
    cache.remember('e', 'r', big, 'x');
    expect(cache.join('d', 'r', { count: 1, from: 1, after: 'x' }, [])).toBeUndefined();
    expect(cache.join('e', 'r', { count: 1, from: 1, after: 'x' }, [])).toHaveLength(1);
    // A transcript larger than the whole budget is not kept at all.
    cache.remember('f', 'r', [{ role: 'user', content: 'x'.repeat(2_000) }], 'x');
    expect(cache.size).toBe(0);
  });
});
