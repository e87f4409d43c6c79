import { describe, expect, it } from 'vitest';
import { receiveTranscript } from '../../../src/activities/model/call-model';
import { TranscriptCache } from '../../../src/activities/model/transcript-cache';
import { ToolResultCache } from '../../../src/activities/tool-result-cache';
import type { TranscriptSlice } from '../../../src/contract/activity-io';
import type { ChatMessage } from '../../../src/contract/agent-loop';
import { textHash } from '../../../src/contract/text-hash';

const whole: ChatMessage[] = [
  { role: 'system', content: 'You help.' },
  { role: 'user', content: 'Find Bob.' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'c1', type: 'function', function: { name: 'search_users', arguments: '{"name":"Bob"}' } }],
  },
  { role: 'tool', tool_call_id: 'c1', content: '[{"id":2}]' },
];
const ref = { role: 'tool' as const, tool_call_id: 'c1', result: { chars: 10, hash: textHash('[{"id":2}]') } };

/** A worker's caches and a query that records whether it was asked. */
function worker() {
  const queried: number[] = [];
  return {
    queried,
    kept: {
      transcripts: new TranscriptCache(),
      toolResults: new ToolResultCache(),
      readTranscript: async (_workflowId: string, _runId: string, count: number) => (
        queried.push(count),
        whole.slice(0, count)
      ),
    },
  };
}
const receive = (slice: TranscriptSlice, kept: ReturnType<typeof worker>['kept']) =>
  receiveTranscript({ workflowId: 'wf', runId: 'run', transcript: slice }, kept);

describe('receiveTranscript: how a model call gets the whole transcript', () => {
  it('a slice from 0 that holds every message is the transcript; nothing is queried', async () => {
    const { kept, queried } = worker();
    expect(await receive({ count: 2, from: 0, messages: whole.slice(0, 2) }, kept)).toEqual(whole.slice(0, 2));
    expect(queried).toEqual([]);
  });

  it('a slice after the reply this worker kept joins it, tool results filled from what the worker ran', async () => {
    const { kept, queried } = worker();
    kept.transcripts.remember('wf', 'run', whole.slice(0, 3), 'r1');
    kept.toolResults.remember('wf', 'run', 'c1', '[{"id":2}]');
    expect(await receive({ count: 4, from: 3, after: 'r1', messages: [ref] }, kept)).toEqual(whole);
    expect(queried).toEqual([]);
  });

  it('anything the worker cannot complete is read through the query: another reply, a result it did not run, a slice cut short', async () => {
    const { kept, queried } = worker();
    kept.transcripts.remember('wf', 'run', whole.slice(0, 3), 'r1');
    kept.toolResults.remember('wf', 'run', 'c1', '[{"id":2}]');
    expect(await receive({ count: 4, from: 3, after: 'r0', messages: [whole[3]] }, kept)).toEqual(whole);
    expect(await receive({ count: 4, from: 3, after: 'r1', messages: [{ ...ref, tool_call_id: 'c9' }] }, kept)).toEqual(
      whole,
    );
    expect(await receive({ count: 2, from: 0, messages: [] }, kept)).toEqual(whole.slice(0, 2));
    expect(queried).toEqual([4, 4, 2]);
  });
});
