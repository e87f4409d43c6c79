import { createHash } from 'node:crypto';
import { TOOL_RESULT_MAX_CHARS } from '../contract/activity-options';
import type { BlobStore } from '../payloads/blob-store';

/**
 * What the model (and the history) gets of a tool's result: the result itself when it has at most
 * `TOOL_RESULT_MAX_CHARS` characters; otherwise its beginning and a note that says it was cut, how
 * long it was and, when a blob store is configured, the key under which the full result was kept
 * (`<dataDir>/payloads/<key>`, the UTF-8 text). The model is told to ask for less (a narrower query).
 */
export function resultForTranscript(
  content: string,
  store: BlobStore | undefined,
  maxChars = TOOL_RESULT_MAX_CHARS,
): string {
  if (content.length <= maxChars) return content;
  let kept = '';
  if (store) {
    const bytes = new TextEncoder().encode(content);
    const key = store.keyOf?.(bytes) ?? createHash('sha256').update(bytes).digest('hex');
    store.put(key, bytes);
    kept = ` The full result is stored under payload key ${key}.`;
  }
  return (
    `${content.slice(0, maxChars)}\n\n[Truncated: the tool returned ${content.length} characters; only the first ${maxChars} are shown.${kept} ` +
    'Ask for less (a narrower query) if you need the rest.]'
  );
}
