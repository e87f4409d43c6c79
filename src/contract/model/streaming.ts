/**
 * What the model activity's heartbeats carry while a reply streams in: the reply's length so far and
 * its last characters. Heartbeat details live in the activity's pending state (read through
 * `describe()`), not in the history, and each replaces the one before; the finished message is
 * recorded once, as the activity's result. `waveloop run`/`follow` print the text as it grows.
 */
export interface StreamedText {
  iteration: number;
  /** The model activity's attempt: a retried call streams its reply again from the start. */
  attempt: number;
  /** Characters of the reply so far. */
  length: number;
  /** Its last `STREAM_TAIL_CHARS` characters (all of it, for most replies). */
  tail: string;
  /** The model's thinking so far, when it sends it apart from its text (its length and last characters, like the text's). */
  thinking?: StreamedPart;
}

/** How much of a growing text there is, and its last characters. */
export interface StreamedPart {
  length: number;
  tail: string;
}

export const STREAM_TAIL_CHARS = 8_192;

export function streamedText(iteration: number, attempt: number, text: string, thinking = ''): StreamedText {
  return {
    iteration,
    attempt,
    length: text.length,
    tail: text.slice(-STREAM_TAIL_CHARS),
    ...(thinking ? { thinking: { length: thinking.length, tail: thinking.slice(-STREAM_TAIL_CHARS) } } : {}),
  };
}

/**
 * The text a reader who has shown the first `shown` characters has not seen yet; when more has
 * been generated than the tail holds, what is missing is marked with `…`.
 */
export function unseenText(stream: StreamedPart, shown: number): string {
  const missing = stream.length - shown;
  if (missing <= 0) return '';
  return missing <= stream.tail.length ? stream.tail.slice(stream.tail.length - missing) : `…${stream.tail}`;
}

export function isStreamedText(value: unknown): value is StreamedText {
  const v = value as Partial<StreamedText> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.iteration === 'number' &&
    typeof v.attempt === 'number' &&
    typeof v.length === 'number' &&
    typeof v.tail === 'string'
  );
}
