import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import type OpenAI from 'openai';
import type { AssistantMessage, Usage } from '../common/contract';
import { FailureType } from '../common/errors';

type ChatRequest = OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming;

/** One model reply, however it arrived (whole or streamed). */
export interface ChatReply {
  message: AssistantMessage;
  finishReason: string | null;
  usage: Usage;
  /** The model that answered, as the endpoint named it. */
  model?: string;
}

/** One Chat Completions call answered as a whole. */
export async function chatWhole(openai: OpenAI, request: ChatRequest, signal: AbortSignal): Promise<ChatReply> {
  return fromCompletion(await openai.chat.completions.create(request, { signal }));
}

/**
 * One Chat Completions call streamed: `onText` gets the reply's text so far after every chunk that
 * adds to it; the reply is assembled from the chunks (text, tool calls by index, finish reason, and
 * usage from the last chunk). An endpoint that ignores `stream` and answers with a whole completion
 * is read as one. The `openai` package's own stream helper is not used: it refuses chunks without a
 * `role` or `finish_reason`, which several OpenAI-compatible servers leave out.
 */
export async function chatStreamed(
  openai: OpenAI,
  request: ChatRequest,
  signal: AbortSignal,
  onText: (text: string) => void,
): Promise<ChatReply> {
  const { data: stream, response } = await openai.chat.completions
    .create({ ...request, stream: true, stream_options: { include_usage: true } }, { signal })
    .withResponse();
  if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) {
    return fromCompletion((await response.json()) as OpenAI.Chat.Completions.ChatCompletion);
  }
  let text = '';
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
    if (choice.delta?.content) {
      text += choice.delta.content;
      onText(text);
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
  return {
    message: { role: 'assistant', content: text === '' ? null : text, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) },
    finishReason,
    usage: toUsage(usage),
    ...(model ? { model } : {}),
  };
}

function fromCompletion(completion: OpenAI.Chat.Completions.ChatCompletion): ChatReply {
  const choice = completion.choices?.[0];
  if (!choice) {
    throw ApplicationFailure.create({
      type: FailureType.ModelServerError,
      message: 'The model endpoint answered without any choice.',
    });
  }
  return {
    message: toAssistantMessage(choice.message),
    finishReason: choice.finish_reason ?? null,
    usage: toUsage(completion.usage),
    ...(completion.model ? { model: completion.model } : {}),
  };
}

function toAssistantMessage(message: OpenAI.Chat.Completions.ChatCompletionMessage): AssistantMessage {
  const calls = (message.tool_calls ?? []).flatMap((call) =>
    call.type === 'function'
      ? [{ id: call.id, type: 'function' as const, function: { name: call.function.name, arguments: call.function.arguments ?? '' } }]
      : [],
  );
  return { role: 'assistant', content: message.content ?? null, ...(calls.length > 0 ? { tool_calls: calls } : {}) };
}

function toUsage(usage: OpenAI.Completions.CompletionUsage | undefined | null): Usage {
  return {
    promptTokens: usage?.prompt_tokens ?? 0,
    completionTokens: usage?.completion_tokens ?? 0,
    totalTokens: usage?.total_tokens ?? 0,
  };
}
