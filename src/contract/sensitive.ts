import type { ChatMessage } from './agent-loop';

/**
 * Sensitive arguments (a card number, an IBAN, a password) as people and logs see them: masked,
 * `•••• 1234`, never in clear. The tool still gets the real value. No zod and no I/O here: workflow
 * code masks with it too.
 */

/** What a masked value shows: its last four characters when it has more than eight, else nothing. */
export function maskValue(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  return text.length > 8 ? `•••• ${text.slice(-4)}` : '••••';
}

/** `args` with the value of each top-level field named in `sensitive` masked (`maskValue`); the rest as is. */
export function maskArgs(
  args: Record<string, unknown>,
  sensitive: readonly string[] | undefined,
): Record<string, unknown> {
  if (!sensitive?.length) return args;
  return Object.fromEntries(
    Object.entries(args).map(([field, value]) => [
      field,
      sensitive.includes(field) && value !== undefined && value !== null ? maskValue(value) : value,
    ]),
  );
}

/**
 * Edited arguments as the call will run with them: a sensitive field whose edited value is the mask
 * of its real value (the person left it as shown, `•••• 1234`) keeps the real value; any other value
 * replaces it. A person cannot see a sensitive value, so leaving its mask means "unchanged".
 */
export function unmaskArgs(
  edited: Record<string, unknown>,
  real: Record<string, unknown>,
  sensitive: readonly string[] | undefined,
): Record<string, unknown> {
  if (!sensitive?.length) return edited;
  return Object.fromEntries(
    Object.entries(edited).map(([field, value]) => [
      field,
      sensitive.includes(field) && field in real && real[field] != null && value === maskValue(real[field])
        ? real[field]
        : value,
    ]),
  );
}

/**
 * A tool call's arguments as the model wrote them (JSON text), the fields named in `sensitive`
 * masked. Text that is not a JSON object is masked whole when the tool has sensitive parameters: it
 * may hold them all the same.
 */
export function maskArguments(text: string, sensitive: readonly string[] | undefined): string {
  if (!sensitive?.length) return text;
  const args = parsedObject(text);
  return args ? JSON.stringify(maskArgs(args, sensitive)) : maskValue(text);
}

/**
 * `messages` with the arguments of each assistant tool call masked by its tool's sensitive
 * parameters (`sensitiveOf(tool)`, as `maskArguments` masks them). The model's text and the tools'
 * results are not masked.
 */
export function maskToolCalls(
  messages: readonly ChatMessage[],
  sensitiveOf: (tool: string) => readonly string[] | undefined,
): ChatMessage[] {
  return messages.map((message) => {
    if (message.role !== 'assistant' || !message.tool_calls?.some((call) => sensitiveOf(call.function.name))) {
      return message;
    }
    return {
      ...message,
      tool_calls: message.tool_calls.map((call) => ({
        ...call,
        function: {
          ...call.function,
          arguments: maskArguments(call.function.arguments, sensitiveOf(call.function.name)),
        },
      })),
    };
  });
}

function parsedObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
