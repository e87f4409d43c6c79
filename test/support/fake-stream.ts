import type * as http from 'node:http';

/** How a reply streams, when the request asks for a stream. */
export interface StreamScript {
  /** The text in these pieces (default: word by word). */
  chunks?: string[];
  /** Wait this long before each piece of text. */
  chunkDelayMs?: number;
  /** After `after` pieces of text, wait for `until` before the rest (to look at a reply half-streamed). */
  hold?: { after: number; until: Promise<unknown> };
  /** Answer with a whole completion anyway, as an endpoint that cannot stream does. */
  whole?: true;
  /**
   * After this many pieces of text, send an error event and end the stream, as llama.cpp's server
   * does when generation fails: `data: {"error": {"code": 500, "message": …, "type": "server_error"}}`.
   */
  errorAfter?: number;
  /** Send the headers and the role chunk at once, then wait this long before the first piece (a model slow to start). */
  firstTokenDelayMs?: number;
}

export type FakeToolCall = { id: string; type: string; function: { name: string; arguments: string } };

/** What a streamed reply holds. */
export interface StreamedReply {
  content: string | null;
  /** Sent as `reasoning_content` deltas, word by word, before the text. */
  reasoning?: string;
  toolCalls: FakeToolCall[];
  finishReason: string;
  /** Sent in a last chunk when the request asked for it (`stream_options.include_usage`); null: never. */
  usage: unknown;
}

/** A reply as OpenAI streams it (server-sent events of `chat.completion.chunk`s). */
export async function streamReply(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  request: { model: string; stream_options?: { include_usage?: boolean } },
  reply: StreamedReply,
  script: StreamScript,
): Promise<void> {
  const chunk = (delta: unknown, finish: string | null = null) => ({
    id: 'chatcmpl-stream',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: request.model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const event = (data: unknown) => res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
  const gone = () => res.destroyed || req.socket.destroyed;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  event(chunk({ role: 'assistant', content: '' }));
  if (script.firstTokenDelayMs) await new Promise((resolve) => setTimeout(resolve, script.firstTokenDelayMs));
  for (const piece of words(reply.reasoning ?? '')) {
    if (gone()) return;
    event(chunk({ reasoning_content: piece }));
  }
  const pieces = script.chunks ?? words(reply.content ?? '');
  for (const [index, piece] of pieces.entries()) {
    if (script.hold && index === script.hold.after) await script.hold.until;
    if (script.chunkDelayMs) await new Promise((resolve) => setTimeout(resolve, script.chunkDelayMs));
    if (gone()) return;
    if (index === script.errorAfter) return failStream(res);
    event(chunk({ content: piece }));
  }
  if (script.errorAfter !== undefined && script.errorAfter >= pieces.length) return failStream(res);
  for (const [index, call] of reply.toolCalls.entries()) {
    event(
      chunk({
        tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }],
      }),
    );
    const half = Math.ceil(call.function.arguments.length / 2);
    for (const part of [call.function.arguments.slice(0, half), call.function.arguments.slice(half)]) {
      if (part) event(chunk({ tool_calls: [{ index, function: { arguments: part } }] }));
    }
  }
  event(chunk({}, reply.finishReason));
  if (request.stream_options?.include_usage && reply.usage !== null)
    event({ ...chunk({}), choices: [], usage: reply.usage });
  event('[DONE]');
  res.end();
}

/** The error event llama.cpp's server sends when generation fails mid-stream; the stream ends with it. */
function failStream(res: http.ServerResponse): void {
  res.write(
    `data: ${JSON.stringify({ error: { code: 500, message: 'fake model: generation failed mid-stream', type: 'server_error' } })}\n\n`,
  );
  res.end();
}

function words(text: string): string[] {
  return text ? (text.match(/\S+\s*|\s+/g) ?? []) : [];
}
