import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The benchmarks' fake model: an OpenAI-compatible Chat Completions server (no streaming) whose
 * every reply is a pure function of the request, so any number of runs of any engine can share it.
 * A run says what it wants in its goal, the first user message: `[bench run=ID iters=N calls=K
 * sleep=MS out=BYTES delay=MS]`. While the request holds fewer than `iters` assistant messages
 * (`iters=0`: never stop) the reply is one turn of `calls` parallel calls of `bench_tool({ sleepMs,
 * bytes })`; then it answers `done`. A request without tools (a summary, a wrap-up, a goal
 * component) is answered by `structured`, or with plain text. `delay` holds every answer back (a
 * slow model). Each request's arrival is recorded per run: the gap between two model calls of a
 * run is one iteration (model call + tool wave + everything the engine adds).
 */

export interface Directive {
  run: string;
  iters: number;
  calls: number;
  sleep: number;
  out: number;
  delay: number;
}

/** Builds the goal text a run sends to ask the fake for its behaviour. */
export function goalFor(d: Partial<Directive> & { run: string }): string {
  const full: Directive = { iters: 1, calls: 1, sleep: 0, out: 0, delay: 0, ...d };
  return `[bench run=${full.run} iters=${full.iters} calls=${full.calls} sleep=${full.sleep} out=${full.out} delay=${full.delay}] Use bench_tool as asked.`;
}

export function parseDirective(text: string): Directive | undefined {
  const match = /\[bench ([^\]]*)\]/.exec(text);
  if (!match) return undefined;
  const fields = Object.fromEntries(match[1].split(' ').map((pair) => pair.split('=')));
  const n = (key: string) => Number(fields[key] ?? 0);
  return { run: fields.run ?? '', iters: n('iters'), calls: n('calls'), sleep: n('sleep'), out: n('out'), delay: n('delay') };
}

interface Message {
  role: string;
  content?: unknown;
}

interface Request {
  model: string;
  messages: Message[];
  tools?: unknown[];
  response_format?: { json_schema?: { name?: string } };
}

/** Answers for requests without tools: `structured` gets the schema name (goal components) and the request. */
export type StructuredAnswer = (schema: string | undefined, request: Request) => { content: string; delayMs?: number };

export class BenchModel {
  /** Arrival times (performance.now(), ms) of the model calls of each run. */
  readonly arrivals = new Map<string, number[]>();
  requests = 0;
  inFlight = 0;
  structured: StructuredAnswer = () => ({ content: 'done' });
  /** Overrides the delay of the `call`-th model call (1-based, retries count) of a run. */
  delayFor: ((run: string, call: number) => number | undefined) | undefined;
  /** Called when a request arrives (after it is recorded), before it is answered. */
  onRequest: ((run: string | undefined) => void) | undefined;
  private server: http.Server | undefined;
  private counter = 0;
  baseURL = '';

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    this.server.keepAliveTimeout = 60_000;
    this.server.maxRequestsPerSocket = 0;
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.baseURL = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** Forgets the recorded arrivals (between scenarios). */
  reset(): void {
    this.arrivals.clear();
    this.requests = 0;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const at = performance.now();
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      return send(res, 404, { error: { message: `bench model: no route ${req.method} ${req.url}` } });
    }
    const request = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Request;
    this.requests += 1;
    const user = request.messages.find((m) => m.role === 'user');
    const directive = parseDirective(typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content ?? ''));
    if (directive && request.tools?.length) {
      const list = this.arrivals.get(directive.run) ?? [];
      list.push(at);
      this.arrivals.set(directive.run, list);
    }
    this.onRequest?.(directive?.run);
    this.inFlight += 1;
    try {
      let message: Record<string, unknown>;
      let delay = directive?.delay ?? 0;
      if (directive && this.delayFor) delay = this.delayFor(directive.run, this.arrivals.get(directive.run)?.length ?? 0) ?? delay;
      if (directive && request.tools?.length) {
        const done = request.messages.filter((m) => m.role === 'assistant').length;
        if (directive.iters > 0 && done >= directive.iters) {
          message = { role: 'assistant', content: 'done' };
        } else {
          const args = JSON.stringify({ sleepMs: directive.sleep, bytes: directive.out });
          const calls = Array.from({ length: directive.calls }, () => ({
            id: `call_${++this.counter}`,
            type: 'function',
            function: { name: 'bench_tool', arguments: args },
          }));
          message = { role: 'assistant', content: null, tool_calls: calls };
        }
      } else {
        const answer = this.structured(request.response_format?.json_schema?.name, request);
        if (answer.delayMs !== undefined) delay = answer.delayMs;
        message = { role: 'assistant', content: answer.content };
      }
      if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
      if (res.destroyed || req.socket.destroyed) return;
      send(res, 200, {
        id: `chatcmpl-${this.requests}`,
        object: 'chat.completion',
        created: 1_700_000_000,
        model: request.model,
        choices: [{ index: 0, message, finish_reason: message.tool_calls ? 'tool_calls' : 'stop' }],
        usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
      });
    } finally {
      this.inFlight -= 1;
    }
  }
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
