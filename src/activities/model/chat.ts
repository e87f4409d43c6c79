import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import type OpenAI from 'openai';
import type { AssistantMessage, Usage } from '../../contract/agent-loop';
import { FailureType } from '../../contract/errors';
import type { EndpointQuirks } from './endpoint-quirks';
import { joinThinking, reasoningField, splitThinking } from './reasoning';
import type { ChatParams } from './refused-parameters';
import { replyUsage } from './usage-estimate';

type ChatRequest = OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming;

/** One model reply, however it arrived (whole or streamed). */
export interface ChatReply {
  message: AssistantMessage;
  finishReason: string | null;
  usage: Usage;
  /** The model that answered, as the endpoint named it. */
  model?: string;
  /** The model's thinking (`reasoning_content`, or a leading `<think>` block), kept out of `message`. */
  reasoning?: string;
}

export interface ChatOptions {
  signal: AbortSignal;
  /** Give up after this long (the attempt's own timeout); default: the client's. */
  timeoutMs?: number;
  /** What the endpoints refused so far: the request goes without it, and a new refusal is learned (`EndpointQuirks`). */
  quirks: EndpointQuirks;
  /** Stream the reply (with its usage asked for), calling `onText` as it grows; else ask for it whole. */
  stream?: boolean;
  /** The reply's text and thinking so far, after every chunk that adds to either. */
  onText?: (text: string, thinking: string) => void;
  /** The response's status and headers (its rate-limit headers), as soon as they arrive. */
  onResponse?: (status: number, headers: Headers) => void;
}

/**
 * One Chat Completions call to the client's endpoint, streamed or whole, as the endpoint takes it:
 * parameters it refused are left out or replaced, and a 400 refusing one more is learned and the call
 * made again at once (`EndpointQuirks.send`).
 */
export function chat(
  openai: OpenAI,
  request: ChatParams,
  { signal, timeoutMs, quirks, stream, onText, onResponse }: ChatOptions,
): Promise<ChatReply> {
  const { stream: _ignored, ...whole } = request;
  const options: RequestOptions = {
    signal,
    ...(timeoutMs ? { timeout: Math.min(timeoutMs, openai.timeout) } : {}),
    ...(onResponse ? { onResponse } : {}),
  };
  if (!stream)
    return quirks.send(openai.baseURL, whole as ChatRequest, (adapted) => chatWhole(openai, adapted, options));
  const streamed = { ...whole, stream_options: { include_usage: true } } as ChatRequest;
  return quirks.send(openai.baseURL, streamed, (adapted) =>
    chatStreamed(openai, adapted, options, onText ?? (() => undefined)),
  );
}

/** How a call is sent: cancelled with the activity, and given up after its timeout. */
export interface RequestOptions {
  signal: AbortSignal;
  timeout?: number;
  /** Called with the response's status and headers (not sent to the endpoint). */
  onResponse?: (status: number, headers: Headers) => void;
}

/** One Chat Completions call answered as a whole. */
export async function chatWhole(
  openai: OpenAI,
  request: ChatRequest,
  { onResponse, ...options }: RequestOptions,
): Promise<ChatReply> {
  const { data, response } = await openai.chat.completions.create(request, options).withResponse();
  onResponse?.(response.status, response.headers);
  return fromCompletion(data, request);
}

/**
 * One Chat Completions call streamed (with the `stream_options` the request carries): `onText` gets
 * the reply's text and thinking so far after every chunk that adds to either; the reply is assembled
 * from the chunks (text, reasoning, tool calls by index, finish reason, and usage from the last
 * chunk). An endpoint that ignores `stream` and answers with a whole completion is read as one.
 * The `openai` package's own stream helper is not used: it refuses chunks without a `role` or
 * `finish_reason`, which several OpenAI-compatible servers leave out.
 */
export async function chatStreamed(
  openai: OpenAI,
  request: ChatRequest,
  { onResponse, ...options }: RequestOptions,
  onText: (text: string, thinking: string) => void,
): Promise<ChatReply> {
  const { data: stream, response } = await openai.chat.completions
    .create({ ...request, stream: true }, options)
    .withResponse();
  onResponse?.(response.status, response.headers);
  if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) {
    return fromCompletion((await response.json()) as OpenAI.Chat.Completions.ChatCompletion, request);
  }
  let text = '';
  let reasoning = '';
  let chunks = 0;
  let finishReason: string | null = null;
  let usage: OpenAI.Completions.CompletionUsage | undefined;
  let model: string | undefined;
  const calls: Array<{ id: string; name: string; arguments: string }> = [];
  for await (const chunk of stream) {
    chunks += 1;
    if (chunk.usage) usage = chunk.usage;
    if (chunk.model) model = chunk.model;
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    if (choice.finish_reason) finishReason = choice.finish_reason;
    for (const delta of choice.delta?.tool_calls ?? []) {
      const call = (calls[delta.index ?? calls.length] ??= { id: '', name: '', arguments: '' });
      if (delta.id) call.id = delta.id;
      if (delta.function?.name) call.name = delta.function.name;
      if (delta.function?.arguments) call.arguments += delta.function.arguments;
    }
    const thought = reasoningField(choice.delta);
    if (thought) reasoning += thought;
    if (choice.delta?.content) text += choice.delta.content;
    if (thought || choice.delta?.content) {
      const said = splitThinking(text, true);
      onText(said.text, joinThinking(reasoning, said.thinking));
    }
  }
  if (chunks === 0) {
    throw ApplicationFailure.create({
      type: FailureType.ModelServerError,
      message: 'The model endpoint ended its stream without sending anything.',
    });
  }
  const toolCalls = calls.filter(Boolean).map((call) => ({
    // Call ids key tool effects (idempotency): one an endpoint left out must be unique in the run.
    id: call.id || `call_${randomUUID()}`,
    type: 'function' as const,
    function: { name: call.name, arguments: call.arguments },
  }));
  return reply(request, { content: text, reasoning, toolCalls, finishReason, usage, model });
}

/** The reply of the endpoint's parts: its thinking taken out of its text, its usage reported or estimated. */
function reply(
  request: ChatRequest,
  parts: {
    content: string;
    reasoning: string;
    toolCalls: NonNullable<AssistantMessage['tool_calls']>;
    finishReason: string | null;
    usage?: OpenAI.Completions.CompletionUsage | null;
    model?: string;
  },
): ChatReply {
  const said = splitThinking(parts.content);
  const reasoning = joinThinking(parts.reasoning, said.thinking);
  const message: AssistantMessage = {
    role: 'assistant',
    content: said.text === '' ? null : said.text,
    ...(parts.toolCalls.length > 0 ? { tool_calls: parts.toolCalls } : {}),
  };
  return {
    message,
    finishReason: parts.finishReason,
    usage: replyUsage(parts.usage, request, { message, reasoning }),
    ...(parts.model ? { model: parts.model } : {}),
    ...(reasoning ? { reasoning } : {}),
  };
}

function fromCompletion(completion: OpenAI.Chat.Completions.ChatCompletion, request: ChatRequest): ChatReply {
  const choice = completion.choices?.[0];
  if (!choice) {
    throw ApplicationFailure.create({
      type: FailureType.ModelServerError,
      message: 'The model endpoint answered without any choice.',
    });
  }
  const toolCalls = (choice.message.tool_calls ?? []).flatMap((call) =>
    call.type === 'function'
      ? [
          {
            id: call.id,
            type: 'function' as const,
            function: { name: call.function.name, arguments: call.function.arguments ?? '' },
          },
        ]
      : [],
  );
  return reply(request, {
    content: choice.message.content ?? '',
    reasoning: reasoningField(choice.message),
    toolCalls,
    finishReason: choice.finish_reason ?? null,
    usage: completion.usage,
    model: completion.model,
  });
}
