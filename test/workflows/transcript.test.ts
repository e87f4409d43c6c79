import { describe, expect, it } from 'vitest';
import type { ModelCallOutput } from '../../src/contract/activity-io';
import type { ChatMessage } from '../../src/contract/agent-loop';
import { textHash } from '../../src/contract/text-hash';
import { MAX_OPENING_CHARS, Transcript } from '../../src/workflows/transcript';

const opening: ChatMessage[] = [
  { role: 'system', content: 'You help.' },
  { role: 'user', content: 'Find Bob.' },
];
const reply = (id: string, calls: string[] = []): ModelCallOutput => ({
  message: {
    role: 'assistant',
    content: null,
    tool_calls: calls.map((call) => ({ id: call, type: 'function', function: { name: 't', arguments: '{}' } })),
  },
  usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 },
  finishReason: 'tool_calls',
  replyId: id,
  at: 0,
});

describe('Transcript: what a model call sends of the run', () => {
  it('slice: the first call carries its short opening whole, from 0', () => {
    expect(new Transcript(opening).slice()).toEqual({ count: 2, from: 0, messages: opening });
  });

  it('slice: a long opening is left to the query, so the history does not record it twice', () => {
    const long = new Transcript([opening[0], { role: 'user', content: 'x'.repeat(MAX_OPENING_CHARS + 1) }]);
    expect(long.slice()).toEqual({ count: 2, from: 0, messages: [] });
  });

  it('slice: after a reply, only what came since, with results the worker kept named by reference', () => {
    const transcript = new Transcript(opening);
    transcript.heard(reply('r1', ['c1', 'c2']));
    transcript.addResults(
      [
        { role: 'tool', tool_call_id: 'c1', content: 'from runTool' },
        { role: 'tool', tool_call_id: 'c2', content: 'an answer a person gave' },
      ],
      ['c1'],
    );
    expect(transcript.slice()).toEqual({
      count: 5,
      from: 3,
      after: 'r1',
      messages: [
        { role: 'tool', tool_call_id: 'c1', result: { chars: 12, hash: textHash('from runTool') } },
        { role: 'tool', tool_call_id: 'c2', content: 'an answer a person gave' },
      ],
    });
  });

  it('slice(whole): a local model call always gets every message, never a reference', () => {
    const transcript = new Transcript(opening);
    transcript.heard(reply('r1', ['c1']));
    transcript.addResults([{ role: 'tool', tool_call_id: 'c1', content: 'from runTool' }], ['c1']);
    expect(transcript.slice(true)).toEqual({ count: 4, from: 0, messages: transcript.messages });
  });

  it('replace: a pruned transcript starts again from 0 (no worker holds it)', () => {
    const transcript = new Transcript(opening);
    transcript.heard(reply('r1', ['c1']));
    transcript.addResults([{ role: 'tool', tool_call_id: 'c1', content: 'from runTool' }], ['c1']);
    const kept: ChatMessage[] = [...opening, { role: 'user', content: 'Summary …' }];
    transcript.replace(kept);
    expect(transcript.slice()).toEqual({ count: 3, from: 0, messages: kept });
    expect(transcript.charsSinceReply()).toBe(kept.reduce((n, m) => n + m.content!.length, 0));
  });

  it('charsSinceReply: counts what the next call adds to what the latest call saw', () => {
    const transcript = new Transcript(opening);
    transcript.heard(reply('r1', ['c1']));
    transcript.addResults([{ role: 'tool', tool_call_id: 'c1', content: '12345' }], []);
    transcript.add({ role: 'user', content: 'abc' });
    expect(transcript.charsSinceReply()).toBe(8);
  });
});
