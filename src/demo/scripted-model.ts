import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { demoReply, type ScriptedReply } from './demo-script';

/**
 * The scripted demo model: an OpenAI-compatible endpoint on 127.0.0.1 (a free port) that answers
 * `POST /v1/chat/completions` with the demo scenario's next step (`demoReply`), so `waveloop demo`
 * shows waveloop working where no model endpoint is configured. It answers whole completions, and,
 * when the request asks for `stream: true` (the worker's default, WAVELOOP_STREAM), server-sent
 * `chat.completion.chunk` events in OpenAI's format: the text word by word, then each tool call,
 * then the usage when `stream_options.include_usage` asks for it. Usage counts a token for every
 * four characters. `GET /v1/models` names its one model; anything else answers 404.
 */

/** The scripted model while it listens. */
export interface ScriptedModel {
  /** Its OpenAI base URL, `http://127.0.0.1:<port>/v1`. */
  baseURL: string;
  close(): Promise<void>;
}

/** The name the scripted model answers as, when a request names none. */
export const SCRIPTED_MODEL_NAME = 'waveloop-scripted-demo';

const MessageSchema = z.looseObject({
  role: z.string(),
  content: z
    .union([z.string(), z.null(), z.array(z.looseObject({ type: z.string().optional(), text: z.string().optional() }))])
    .optional(),
  tool_calls: z
    .array(z.looseObject({ id: z.string(), function: z.looseObject({ name: z.string(), arguments: z.string() }) }))
    .optional(),
  tool_call_id: z.string().optional(),
});

const RequestSchema = z.looseObject({
  model: z.string().optional(),
  messages: z.array(MessageSchema).min(1),
  tools: z.array(z.looseObject({ function: z.looseObject({ name: z.string() }) })).optional(),
  stream: z.boolean().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
});

type ChatRequest = z.infer<typeof RequestSchema>;

/** Starts the scripted model on 127.0.0.1 and a free port. */
export async function startScriptedModel(): Promise<ScriptedModel> {
  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendError(res, 500, `scripted demo model: ${String(err)}`);
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  if (req.method === 'GET' && url.pathname === '/v1/models') {
    sendJson(res, 200, { object: 'list', data: [{ id: SCRIPTED_MODEL_NAME, object: 'model', owned_by: 'waveloop' }] });
    return;
  }
  if (req.method !== 'POST' || url.pathname !== '/v1/chat/completions') {
    sendError(
      res,
      404,
      `The scripted demo model answers only POST /v1/chat/completions, not ${req.method} ${url.pathname}.`,
    );
    return;
  }
  let body: unknown;
  try {
    body = JSON.parse(await readBody(req));
  } catch {
    sendError(res, 400, 'The request body is not JSON.');
    return;
  }
  const parsed = RequestSchema.safeParse(body);
  if (!parsed.success) {
    sendError(res, 400, `Not a chat completion request: ${z.prettifyError(parsed.error)}`);
    return;
  }
  const request = parsed.data;
  const reply = demoReply(
    request.messages,
    request.tools?.map((tool) => tool.function.name),
  );
  if (request.stream) streamReply(res, request, reply);
  else sendJson(res, 200, completion(request, reply));
}

/** The reply as one `chat.completion`. */
function completion(request: ChatRequest, reply: ScriptedReply) {
  const toolCalls = wireToolCalls(reply);
  return {
    id: `chatcmpl-${randomUUID()}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: request.model ?? SCRIPTED_MODEL_NAME,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: reply.content, ...(toolCalls.length > 0 && { tool_calls: toolCalls }) },
        finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
      },
    ],
    usage: usageOf(request, reply),
  };
}

/** The reply as OpenAI streams it: server-sent `chat.completion.chunk`s, then `[DONE]`. */
function streamReply(res: http.ServerResponse, request: ChatRequest, reply: ScriptedReply): void {
  const id = `chatcmpl-${randomUUID()}`;
  const created = Math.floor(Date.now() / 1000);
  const model = request.model ?? SCRIPTED_MODEL_NAME;
  const chunk = (choices: unknown[], extra: object = {}) => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    choices,
    ...extra,
  });
  const delta = (change: object, finish: string | null = null) =>
    chunk([{ index: 0, delta: change, finish_reason: finish }]);
  const event = (data: unknown) => res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);

  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  event(delta({ role: 'assistant', content: '' }));
  for (const word of reply.content?.match(/\S+\s*/g) ?? []) event(delta({ content: word }));
  const toolCalls = wireToolCalls(reply);
  for (const [index, toolCall] of toolCalls.entries()) event(delta({ tool_calls: [{ index, ...toolCall }] }));
  event(delta({}, toolCalls.length > 0 ? 'tool_calls' : 'stop'));
  if (request.stream_options?.include_usage) event(chunk([], { usage: usageOf(request, reply) }));
  event('[DONE]');
  res.end();
}

function wireToolCalls(reply: ScriptedReply) {
  return reply.toolCalls.map((toolCall) => ({
    id: `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`,
    type: 'function' as const,
    function: { name: toolCall.name, arguments: JSON.stringify(toolCall.args) },
  }));
}

/** A token for every four characters of what was sent and what is answered. */
function usageOf(request: ChatRequest, reply: ScriptedReply) {
  const tokens = (text: string) => Math.ceil(text.length / 4);
  const prompt_tokens = tokens(JSON.stringify(request.messages)) + tokens(JSON.stringify(request.tools ?? []));
  const completion_tokens = tokens((reply.content ?? '') + JSON.stringify(reply.toolCalls));
  return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (data: Buffer) => chunks.push(data));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** An error in OpenAI's shape, so the client's error names the message. */
function sendError(res: http.ServerResponse, status: number, message: string): void {
  sendJson(res, status, { error: { message, type: status === 404 ? 'not_found' : 'invalid_request_error' } });
}
