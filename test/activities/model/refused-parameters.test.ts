import { APIError } from 'openai';
import { describe, expect, it } from 'vitest';
import {
  adaptRequest,
  refusedParameter,
  type ChatParams,
  type RefusedParameter,
} from '../../../src/activities/model/refused-parameters';

/** A 400 as the `openai` client throws it for an error body. */
function badRequest(error: Record<string, unknown>, status = 400): APIError {
  return APIError.generate(status, { error }, undefined, new Headers());
}

const REQUEST: ChatParams = {
  model: 'm',
  messages: [
    { role: 'system', content: 'You plan.' },
    { role: 'user', content: 'Go' },
  ],
  max_tokens: 4_096,
  stream_options: { include_usage: true },
  tools: [{ type: 'function', function: { name: 'calculator', parameters: {} } }],
  parallel_tool_calls: true,
  tool_choice: 'auto',
};

const PLAN: ChatParams = {
  model: 'm',
  messages: [{ role: 'system', content: 'Reply with a wave plan.' }],
  response_format: {
    type: 'json_schema',
    json_schema: { name: 'wave_plan', schema: { type: 'object', required: ['status'] } },
  },
};

describe('refusedParameter', () => {
  it.each([
    [
      "OpenAI's unsupported_parameter code and param",
      {
        message: "Unsupported parameter: 'parallel_tool_calls' is not supported with this model.",
        param: 'parallel_tool_calls',
        code: 'unsupported_parameter',
      },
      'parallel_tool_calls',
    ],
    ["Azure's wording", { message: 'Unrecognized request argument supplied: stream_options' }, 'stream_options'],
    ["llama.cpp's wording", { message: 'Unsupported param: tool_choice', code: 400 }, 'tool_choice'],
    [
      'a message naming the replacement too: the first one named',
      { message: "max_tokens is not supported with this model. Use 'max_completion_tokens' instead." },
      'max_tokens',
    ],
    [
      'extra inputs (pydantic, vLLM)',
      {
        message:
          "[{'type': 'extra_forbidden', 'loc': ('body', 'parallel_tool_calls'), 'msg': 'Extra inputs are not permitted'}]",
      },
      'parallel_tool_calls',
    ],
  ] as Array<[string, Record<string, unknown>, RefusedParameter]>)(
    'refusedParameter: %s',
    (_name, error, parameter) => {
      expect(refusedParameter(badRequest(error), REQUEST)).toBe(parameter);
    },
  );

  it('refusedParameter: a refused response_format is the type the request asked for', () => {
    const schema = badRequest({
      message: "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
      param: 'response_format',
    });
    expect(refusedParameter(schema, PLAN)).toBe('json_schema');
    const object = { ...PLAN, response_format: { type: 'json_object' as const } };
    expect(
      refusedParameter(
        badRequest({ message: 'response_format type must be one of "text" or "json_schema", but got: json_object' }),
        object,
      ),
    ).toBe('json_object');
  });

  it('refusedParameter: none for a 400 naming no parameter the request carries, about the context window, or another status', () => {
    expect(refusedParameter(badRequest({ message: 'Invalid value for messages[1].content' }), REQUEST)).toBeUndefined();
    expect(refusedParameter(badRequest({ message: 'Unsupported parameter: top_logprobs' }), REQUEST)).toBeUndefined();
    expect(
      refusedParameter(badRequest({ message: 'Unrecognized request argument supplied: stream_options' }), PLAN),
    ).toBeUndefined();
    expect(
      refusedParameter(
        badRequest({
          message: "max_tokens must be at most 4096, this model's maximum context length is 8192 tokens; not supported",
        }),
        REQUEST,
      ),
    ).toBeUndefined();
    expect(refusedParameter(badRequest({ message: 'tool_choice is not supported' }, 500), REQUEST)).toBeUndefined();
    expect(refusedParameter(new Error('Unsupported param: tool_choice'), REQUEST)).toBeUndefined();
  });
});

describe('adaptRequest', () => {
  it('adaptRequest: leaves out what was refused, and swaps max_tokens for max_completion_tokens', () => {
    const adapted = adaptRequest(
      REQUEST,
      new Set<RefusedParameter>(['stream_options', 'parallel_tool_calls', 'tool_choice', 'max_tokens']),
    );
    expect(adapted).toEqual({
      model: 'm',
      messages: REQUEST.messages,
      tools: REQUEST.tools,
      max_completion_tokens: 4_096,
    });
    expect(
      adaptRequest(REQUEST, new Set<RefusedParameter>(['max_tokens', 'max_completion_tokens'])),
    ).not.toHaveProperty('max_tokens');
    expect(
      adaptRequest(
        { ...REQUEST, max_tokens: undefined, max_completion_tokens: 100 },
        new Set<RefusedParameter>(['max_completion_tokens']),
      ),
    ).toMatchObject({ max_tokens: 100 });
    expect(adaptRequest(REQUEST, new Set())).toBe(REQUEST);
  });

  it('adaptRequest: json_schema refused becomes json_object, then nothing, with the JSON Schema in the system prompt', () => {
    const object = adaptRequest(PLAN, new Set<RefusedParameter>(['json_schema']));
    expect(object.response_format).toEqual({ type: 'json_object' });
    expect(object.messages).toEqual([
      {
        role: 'system',
        content:
          'Reply with a wave plan.\n\nReply with one JSON object, and nothing else, that matches this JSON Schema:\n{"type":"object","required":["status"]}',
      },
    ]);
    const none = adaptRequest(PLAN, new Set<RefusedParameter>(['json_schema', 'json_object']));
    expect(none).not.toHaveProperty('response_format');
    expect(none.messages).toEqual(object.messages);
    // The request given is left as it was.
    expect(PLAN.messages[0]).toEqual({ role: 'system', content: 'Reply with a wave plan.' });
  });
});
