import type OpenAI from 'openai';
import type { AssistantMessage, Usage } from '../../contract/agent-loop';

/** About how many characters a token holds, in English text and JSON. */
const CHARS_PER_TOKEN = 4;

/** What a usage estimate reads of the request: its messages and tool schemas. */
export interface EstimatedRequest {
  messages: readonly OpenAI.Chat.Completions.ChatCompletionMessageParam[];
  tools?: readonly unknown[] | null;
}

/**
 * The usage of one reply: as the endpoint reported it, or, when it reported none (some servers never
 * do, some only in a stream that asked for it), estimated at 4 characters a token (rounded up) and
 * marked `estimated`: the prompt from the request's messages and tool schemas, the completion from
 * the reply's text, its reasoning and its tool calls' arguments. Token and cost budgets then still
 * hold against such an endpoint. A report of zero tokens in and out counts as none.
 */
export function replyUsage(
  reported: OpenAI.Completions.CompletionUsage | null | undefined,
  request: EstimatedRequest,
  reply: { message: AssistantMessage; reasoning?: string },
): Usage {
  const promptTokens = reported?.prompt_tokens ?? 0;
  const completionTokens = reported?.completion_tokens ?? 0;
  if (promptTokens > 0 || completionTokens > 0) {
    return { promptTokens, completionTokens, totalTokens: reported?.total_tokens || promptTokens + completionTokens };
  }
  const prompt = tokens(
    request.messages.reduce((n, message) => n + messageChars(message), 0) +
      (request.tools?.length ? JSON.stringify(request.tools).length : 0),
  );
  const calls = (reply.message.tool_calls ?? []).reduce(
    (n, call) => n + call.function.name.length + call.function.arguments.length,
    0,
  );
  const completion = tokens((reply.message.content ?? '').length + (reply.reasoning ?? '').length + calls);
  return { promptTokens: prompt, completionTokens: completion, totalTokens: prompt + completion, estimated: true };
}

function tokens(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** The characters of a message the model reads: its text (or text parts) and its tool calls. */
function messageChars(message: OpenAI.Chat.Completions.ChatCompletionMessageParam): number {
  const content = message.content;
  const text =
    typeof content === 'string'
      ? content.length
      : (content ?? []).reduce(
          (n, part) => n + ('text' in part && typeof part.text === 'string' ? part.text.length : 0),
          0,
        );
  const calls = 'tool_calls' in message ? (message.tool_calls ?? []) : [];
  return (
    text +
    calls.reduce(
      (n, call) => n + (call.type === 'function' ? call.function.name.length + call.function.arguments.length : 0),
      0,
    )
  );
}
