import { describe, expect, it } from 'vitest';
import { replyUsage } from '../../../src/activities/model/usage-estimate';
import { addUsage, ZERO_USAGE } from '../../../src/contract/model/usage';

const request = {
  messages: [
    { role: 'system' as const, content: 'x'.repeat(40) },
    {
      role: 'assistant' as const,
      content: null,
      tool_calls: [{ id: 'c1', type: 'function' as const, function: { name: 'calc', arguments: '{"e":"1"}' } }],
    },
    { role: 'tool' as const, tool_call_id: 'c1', content: [{ type: 'text' as const, text: 'y'.repeat(7) }] },
  ],
  tools: [{ type: 'function', function: { name: 'calc' } }],
};

describe('replyUsage', () => {
  it('replyUsage: what the endpoint reported, when it did', () => {
    const reported = { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 };
    expect(replyUsage(reported, request, { message: { role: 'assistant', content: 'Hi' } })).toEqual({
      promptTokens: 100,
      completionTokens: 10,
      totalTokens: 110,
    });
  });

  it('replyUsage: none reported (or zeros): 4 characters a token, rounded up, marked estimated', () => {
    // Prompt: 40 + (4 + 9) + 7 characters of messages, 48 of tool schemas: 108 → 27 tokens.
    const tools = JSON.stringify(request.tools).length;
    expect(tools).toBe(48);
    const message = {
      role: 'assistant' as const,
      content: 'Five.',
      tool_calls: [{ id: 'c2', type: 'function' as const, function: { name: 'calc', arguments: '{}' } }],
    };
    // Completion: 5 of text + 6 of tool call + 11 of reasoning: 22 → 6 tokens.
    const expected = { promptTokens: 27, completionTokens: 6, totalTokens: 33, estimated: true };
    expect(replyUsage(undefined, request, { message, reasoning: 'Think hard.' })).toEqual(expected);
    expect(
      replyUsage({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }, request, {
        message,
        reasoning: 'Think hard.',
      }),
    ).toEqual(expected);
  });

  it('addUsage: the sum is estimated when either side is', () => {
    const estimated = { promptTokens: 1, completionTokens: 1, totalTokens: 2, estimated: true as const };
    expect(addUsage(ZERO_USAGE, estimated)).toEqual(estimated);
    expect(addUsage(estimated, ZERO_USAGE)).toEqual(estimated);
    expect(addUsage(ZERO_USAGE, ZERO_USAGE)).not.toHaveProperty('estimated');
  });
});
