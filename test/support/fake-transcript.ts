import type { ChatRequest } from './fake-model';

type Message = ChatRequest['messages'][number];

/**
 * What a real Chat Completions endpoint answers 400 to in a request's transcript, in OpenAI's
 * words, or undefined when it takes it: a `tool` message that answers no call of the assistant
 * message before it (the tool messages of one turn come right after it), and an assistant message
 * with `tool_calls` that is not followed by a `tool` message for each of its calls.
 */
export function transcriptProblem(messages: readonly Message[]): string | undefined {
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    if (message.role === 'tool') return `messages[${i}]: ${TOOL_WITHOUT_CALL} (tool_call_id ${message.tool_call_id})`;
    const ids = callIds(message);
    if (!ids.length) continue;
    const answered = new Set<string>();
    let j = i + 1;
    for (; j < messages.length && messages[j]!.role === 'tool'; j++) {
      const id = messages[j]!.tool_call_id ?? '';
      if (!ids.includes(id)) return `messages[${j}]: ${TOOL_WITHOUT_CALL} (tool_call_id ${id})`;
      answered.add(id);
    }
    const missing = ids.filter((id) => !answered.has(id));
    if (missing.length)
      return `messages[${i}]: An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${missing.join(', ')}`;
    i = j - 1;
  }
  return undefined;
}

const TOOL_WITHOUT_CALL =
  "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";

function callIds(message: Message): string[] {
  if (message.role !== 'assistant' || !Array.isArray(message.tool_calls)) return [];
  return message.tool_calls.map((call) => String((call as { id?: unknown }).id));
}
