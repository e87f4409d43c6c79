/**
 * The model's thinking, apart from what it says. Reasoning models behind OpenAI-compatible servers
 * send their thinking as `reasoning_content` (llama.cpp, vLLM, DeepSeek) or `reasoning` (Ollama,
 * OpenRouter) beside `content`, or inline, as a `<think>…</think>` block that starts `content`
 * (Qwen3, DeepSeek-R1 served raw). Thinking is never the answer and never goes back to the model.
 */

const OPEN = '<think>';
const CLOSE = '</think>';

/**
 * `content` split into the thinking of a leading `<think>` block and the text after it (its leading
 * blanks dropped). A block that is not closed is thinking to the end: the reply was cut off in it,
 * or, `streaming`, is still in it. While streaming, a text that is still the start of `<think>`
 * counts as neither yet, and a block's end that has only partly arrived is held back.
 */
export function splitThinking(content: string, streaming = false): { thinking: string; text: string } {
  const start = content.trimStart();
  if (!start.startsWith(OPEN)) {
    return streaming && start !== '' && OPEN.startsWith(start)
      ? { thinking: '', text: '' }
      : { thinking: '', text: content };
  }
  const end = start.indexOf(CLOSE);
  if (end < 0) {
    const thinking = start.slice(OPEN.length).trimStart();
    return { thinking: streaming ? thinking.slice(0, thinking.length - partialClose(thinking)) : thinking, text: '' };
  }
  return { thinking: start.slice(OPEN.length, end).trim(), text: start.slice(end + CLOSE.length).trimStart() };
}

/** How many characters at the end of `text` may be the start of `</think>`, still arriving. */
function partialClose(text: string): number {
  for (let n = CLOSE.length - 1; n > 0; n--) if (text.endsWith(CLOSE.slice(0, n))) return n;
  return 0;
}

/** The reasoning text a message or a stream delta carries beside its content, if any. */
export function reasoningField(part: unknown): string {
  const fields = part as { reasoning_content?: unknown; reasoning?: unknown } | null | undefined;
  const value = fields?.reasoning_content ?? fields?.reasoning;
  return typeof value === 'string' ? value : '';
}

/** The thinking of a reply from both places it may come: the reasoning field, then a `<think>` block. */
export function joinThinking(...parts: string[]): string {
  return parts.filter((part) => part.trim() !== '').join('\n\n');
}
