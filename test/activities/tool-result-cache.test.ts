import { describe, expect, it } from 'vitest';
import { ToolResultCache } from '../../src/activities/tool-result-cache';
import { textHash } from '../../src/contract/text-hash';

const ref = (content: string) => ({ chars: content.length, hash: textHash(content) });

describe("ToolResultCache: tool results a worker keeps for the run's next model call", () => {
  it('gives back the result the workflow names, once', () => {
    const cache = new ToolResultCache();
    cache.remember('wf', 'run', 'call-1', '[{"id":2}]');
    expect(cache.take('wf', 'run', 'call-1', ref('[{"id":2}]'))).toBe('[{"id":2}]');
    // Taken: a retried model call on this worker reads the transcript through the query instead.
    expect(cache.take('wf', 'run', 'call-1', ref('[{"id":2}]'))).toBeUndefined();
  });

  it('misses (so the model call asks the workflow) unless run, call, length and hash all match', () => {
    const cache = new ToolResultCache();
    cache.remember('wf', 'run', 'call-1', 'sunny');
    // The workflow recorded another attempt's result (this one's completion never reached the server).
    expect(cache.take('wf', 'run', 'call-1', ref('rainy'))).toBeUndefined();
    cache.remember('wf', 'run', 'call-1', 'sunny');
    expect(cache.take('wf', 'run', 'call-1', { chars: 5, hash: textHash('rainy') })).toBeUndefined();
    cache.remember('wf', 'run', 'call-1', 'sunny');
    expect(cache.take('wf', 'run-2', 'call-1', ref('sunny'))).toBeUndefined();
    expect(cache.take('other', 'run', 'call-1', ref('sunny'))).toBeUndefined();
    expect(cache.take('wf', 'run', 'call-2', ref('sunny'))).toBeUndefined();
  });

  it('keeps at most maxResults results and maxChars characters, dropping the oldest', () => {
    const cache = new ToolResultCache({ maxResults: 2, maxChars: 10 });
    cache.remember('wf', 'run', 'a', 'aaaa');
    cache.remember('wf', 'run', 'b', 'bbbb');
    cache.remember('wf', 'run', 'c', 'cccc');
    expect(cache.size).toBe(2);
    expect(cache.take('wf', 'run', 'a', ref('aaaa'))).toBeUndefined();
    cache.remember('wf', 'run', 'd', 'dddddddd'); // 12 characters with c's: c goes
    expect(cache.take('wf', 'run', 'c', ref('cccc'))).toBeUndefined();
    expect(cache.take('wf', 'run', 'd', ref('dddddddd'))).toBe('dddddddd');
  });
});
