import type { ChatMessage, WaveRecord } from '../contract/agent-loop';

/**
 * Seed 004's memory pruning, for the hand-over to a new run (continue-as-new): the system prompt,
 * the goal, and the recent turns are kept; everything between is replaced by a summary. The kept
 * part starts at a turn boundary, so a tool result never loses the assistant message that asked
 * for it.
 */
export const KEEP_RECENT_MESSAGES = 12;

/** The range [from, to) of messages to summarise, or undefined when there is nothing to drop. */
export function compactionRange(
  messages: ChatMessage[],
  keepRecent = KEEP_RECENT_MESSAGES,
): { from: number; to: number } | undefined {
  const head = 2; // system prompt and goal
  let to = Math.max(head, messages.length - keepRecent);
  while (to < messages.length && messages[to].role === 'tool') to += 1;
  return to > head ? { from: head, to } : undefined;
}

/** The transcript with [from, to) replaced by one message carrying `summary`. */
export function compacted(
  messages: ChatMessage[],
  range: { from: number; to: number },
  summary: string,
): ChatMessage[] {
  return [
    ...messages.slice(0, range.from),
    {
      role: 'user',
      content: `Summary of the earlier part of this run (${range.to - range.from} messages):\n${summary}`,
    },
    ...messages.slice(range.to),
  ];
}

/** Waves carried into the next run keep their calls; results of old waves, and what the model said, are clipped to `max` characters. */
export function clippedWaves(waves: WaveRecord[], max = 200): WaveRecord[] {
  const clip = (text: string | undefined) =>
    text === undefined || text.length <= max ? text : `${text.slice(0, max)}… (clipped at hand-over)`;
  return waves.map((wave) => ({
    ...wave,
    ...(wave.said === undefined ? {} : { said: clip(wave.said) }),
    calls: wave.calls.map((call) => ({ ...call, result: clip(call.result), error: clip(call.error) })),
  }));
}
