import { APIError } from 'openai';
import type { ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions/completions';
import { isContextOverflow } from './errors';

/**
 * Request parameters an OpenAI-compatible endpoint may refuse with a 400, and how a request does
 * without each: `stream_options`, `parallel_tool_calls` and `tool_choice` are left out; `max_tokens`
 * becomes `max_completion_tokens` (and back), and without both the reply has the endpoint's own
 * limit; a `response_format` of type `json_schema` becomes `json_object`, then none, with the JSON
 * Schema written into the system prompt (the reply is parsed and checked against it either way).
 */
export type RefusedParameter =
  | 'stream_options'
  | 'parallel_tool_calls'
  | 'tool_choice'
  | 'max_tokens'
  | 'max_completion_tokens'
  | 'json_schema'
  | 'json_object';

/** A Chat Completions request, streamed or not. */
export type ChatParams = ChatCompletionCreateParamsBase;

/** How endpoints say they do not take a parameter (OpenAI, Azure, vLLM, llama.cpp, LiteLLM). */
const REFUSAL =
  /unsupported|not supported|does not support|doesn't support|unrecognized|not recognized|unknown (parameter|field|argument)|extra (inputs|fields)|not permitted|not allowed|must be one of/i;

/** OpenAI's error codes for a parameter, or a value of one, that the model does not take. */
const REFUSAL_CODES = new Set(['unsupported_parameter', 'unsupported_value']);

/**
 * The parameter of `request` that the endpoint's error refuses, if it is a 400 (or 422) that names
 * one the request carries: by OpenAI's `param` with an unsupported-parameter code, else by the
 * first such parameter its message names beside words of refusal ("Unsupported parameter:
 * 'parallel_tool_calls'", "Unrecognized request argument supplied: stream_options", "'response_format'
 * of type 'json_schema' is not supported"). A 400 about the context window refuses no parameter.
 */
export function refusedParameter(err: unknown, request: ChatParams): RefusedParameter | undefined {
  if (!(err instanceof APIError) || (err.status !== 400 && err.status !== 422) || isContextOverflow(err))
    return undefined;
  const carried = carriedParameters(request);
  const code = typeof err.code === 'string' ? err.code : '';
  if (typeof err.param === 'string' && REFUSAL_CODES.has(code)) {
    const named = carried.find(({ names }) => names.includes(err.param as string));
    if (named) return named.parameter;
  }
  const message = `${err.message} ${typeof err.param === 'string' ? err.param : ''}`;
  if (!REFUSAL.test(message) && !REFUSAL_CODES.has(code)) return undefined;
  let first: { parameter: RefusedParameter; at: number } | undefined;
  for (const { parameter, names } of carried) {
    for (const name of names) {
      const at = message.search(new RegExp(`\\b${name}\\b`));
      if (at >= 0 && (!first || at < first.at)) first = { parameter, at };
    }
  }
  return first?.parameter;
}

/** The refusable parameters `request` carries, each with the names an error may call it by. */
function carriedParameters(request: ChatParams): Array<{ parameter: RefusedParameter; names: string[] }> {
  const carried: Array<{ parameter: RefusedParameter; names: string[] }> = [];
  if (request.stream_options) carried.push({ parameter: 'stream_options', names: ['stream_options', 'include_usage'] });
  if (request.parallel_tool_calls !== undefined)
    carried.push({ parameter: 'parallel_tool_calls', names: ['parallel_tool_calls'] });
  if (request.tool_choice !== undefined) carried.push({ parameter: 'tool_choice', names: ['tool_choice'] });
  if (request.max_tokens != null) carried.push({ parameter: 'max_tokens', names: ['max_tokens'] });
  if (request.max_completion_tokens != null)
    carried.push({ parameter: 'max_completion_tokens', names: ['max_completion_tokens'] });
  const format = request.response_format?.type;
  if (format === 'json_schema' || format === 'json_object')
    carried.push({ parameter: format, names: ['response_format', format] });
  return carried;
}

/** `request` as an endpoint that refused `refused` takes it (see `RefusedParameter`); it carries none of them. */
export function adaptRequest<R extends ChatParams>(request: R, refused: ReadonlySet<RefusedParameter>): R {
  if (refused.size === 0) return request;
  const adapted: R = { ...request };
  if (refused.has('stream_options')) delete adapted.stream_options;
  if (refused.has('parallel_tool_calls')) delete adapted.parallel_tool_calls;
  if (refused.has('tool_choice')) delete adapted.tool_choice;
  const limit = request.max_tokens ?? request.max_completion_tokens;
  if (limit != null) {
    delete adapted.max_tokens;
    delete adapted.max_completion_tokens;
    const keys =
      request.max_tokens != null
        ? (['max_tokens', 'max_completion_tokens'] as const)
        : (['max_completion_tokens', 'max_tokens'] as const);
    const key = keys.find((k) => !refused.has(k));
    if (key) adapted[key] = limit;
  }
  const format = request.response_format;
  if (format?.type === 'json_schema' && refused.has('json_schema')) {
    if (refused.has('json_object')) delete adapted.response_format;
    else adapted.response_format = { type: 'json_object' };
    adapted.messages = withSchemaInPrompt(request.messages, format.json_schema.schema);
  } else if (format?.type === 'json_object' && refused.has('json_object')) {
    delete adapted.response_format;
  }
  return adapted;
}

/** What a request sends from now on instead of `parameter`, given all the endpoint refused (for the log). */
export function fallbackOf(parameter: RefusedParameter, refused: ReadonlySet<RefusedParameter>): string {
  switch (parameter) {
    case 'max_tokens':
      return refused.has('max_completion_tokens')
        ? 'go without an output token limit'
        : 'send max_completion_tokens instead';
    case 'max_completion_tokens':
      return refused.has('max_tokens') ? 'go without an output token limit' : 'send max_tokens instead';
    case 'json_schema':
      return refused.has('json_object')
        ? 'go without response_format, the JSON Schema written into the prompt'
        : 'ask for response_format json_object instead, the JSON Schema written into the prompt';
    case 'json_object':
      return 'go without response_format';
    case 'stream_options':
      return 'go without it (token usage is estimated when the stream reports none)';
    default:
      return 'go without it';
  }
}

/** The name of `parameter` as the log says it. */
export function parameterName(parameter: RefusedParameter): string {
  return parameter === 'json_schema' || parameter === 'json_object' ? `response_format ${parameter}` : parameter;
}

/** The messages with the reply's JSON Schema written at the end of the system prompt (or in one of its own). */
function withSchemaInPrompt(messages: ChatParams['messages'], schema: unknown): ChatParams['messages'] {
  const note = `Reply with one JSON object, and nothing else, that matches this JSON Schema:\n${JSON.stringify(schema ?? {})}`;
  const [first, ...rest] = messages;
  if (first?.role === 'system' && typeof first.content === 'string')
    return [{ ...first, content: `${first.content}\n\n${note}` }, ...rest];
  return [{ role: 'system', content: note }, ...messages];
}
