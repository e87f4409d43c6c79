import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { refusalOf, type RefusableParameter } from './fake-refusals';
import { streamReply, type StreamScript } from './fake-stream';

export type { StreamScript } from './fake-stream';
export type { RefusableParameter } from './fake-refusals';

/**
 * The fake OpenAI-compatible model of the tests and the benchmarks: an HTTP server that answers
 * `POST /v1/chat/completions` through the real `openai` client. It is the only fake model.
 *
 * - Scripted (the tests): `script(...)` replies in order. When the script runs out it answers 400
 *   (a non-retryable error, so the run fails loudly) and records the overrun; `assertDone()` fails
 *   a test that used more or fewer replies than scripted. `route(fn)` answers every request by a
 *   function of it instead (runs that interleave).
 * - Goal-encoded (the benchmarks): `goalEncoded()` answers every request as the run's goal says
 *   (`[bench run=… iters=…]`, see `goalFor`), for any number of runs of any engine at once, and
 *   records when each run's model calls arrive.
 *
 * A request with `stream: true` gets its reply as server-sent events, as OpenAI streams it: the text
 * in pieces, each tool call's name then its arguments in two halves, the finish reason, the usage
 * (test/support/fake-stream.ts). `refuse(...)` makes it an endpoint that refuses some parameters
 * with a 400, as real ones do (test/support/fake-refusals.ts).
 */

export interface ScriptedToolCall {
  name: string;
  /** An object is sent as JSON; a string is sent verbatim (to script malformed arguments). */
  args: Record<string, unknown> | string;
  id?: string;
}

export type ScriptedReply = (
  | { content: string | null; toolCalls?: undefined; finishReason?: string; stream?: StreamScript }
  | { toolCalls: ScriptedToolCall[]; content?: string; finishReason?: string; stream?: StreamScript }
  | { status: number; message?: string; code?: string; headers?: Record<string, string> }
  /** Closes the connection without answering (a dropped connection). */
  | { drop: true }
  /** Answers 200 with this exact body text (malformed or choice-less completions). */
  | { rawBody: string }
) & {
  /** Answer only after this many milliseconds (a slow model, or a hang past the activity timeout). */
  delayMs?: number;
  /**
   * The usage the reply reports (default FAKE_USAGE), as a model near its context window would;
   * null: none, neither in a whole reply nor in a stream that asks for it (as some servers do).
   */
  usage?: typeof FAKE_USAGE | null;
  /** The model's thinking, sent as `reasoning_content` beside the content (whole, and in stream deltas before the text). */
  reasoning?: string;
};

/** A step may be a function of the request (route by what was asked), and may answer late (a slow model). */
export type ScriptStep = ScriptedReply | ((request: ChatRequest) => ScriptedReply | Promise<ScriptedReply>);

/** The parts of a Chat Completions request the tests look at. */
export interface ChatRequest {
  model: string;
  messages: Array<{ role: string; content?: string | null; tool_call_id?: string; tool_calls?: unknown[] }>;
  tools?: Array<{ type: string; function: { name: string; description?: string; parameters?: unknown } }>;
  parallel_tool_calls?: boolean;
  tool_choice?: unknown;
  max_tokens?: number;
  max_completion_tokens?: number;
  response_format?: { type: string; json_schema?: { name: string; schema?: unknown; strict?: boolean } };
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  authorization?: string;
  /** When the fake received the request (ms since the epoch). */
  receivedAt?: number;
  /** When the fake had read the request's body (`performance.now()`, for measuring gaps between calls). */
  arrivedAt?: number;
}

export const FAKE_USAGE = { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 };

export class FakeModel {
  /** The requests since the last `script`/`route` (none are kept in the goal-encoded mode). */
  readonly requests: ChatRequest[] = [];
  /** How many requests arrived in all. */
  received = 0;
  private keepRequests = true;
  private steps: ScriptStep[] = [];
  private router: ((request: ChatRequest) => ScriptedReply | Promise<ScriptedReply>) | undefined;
  private pending = 0;
  private overruns = 0;
  private callCounter = 0;
  private server: http.Server | undefined;
  private refused: RefusableParameter[] = [];

  /** `http://127.0.0.1:<port>/v1`, for `OPENAI_BASE_URL`. */
  baseURL = '';

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    // Engines keep their connections open between calls, however long a run thinks.
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.baseURL = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** Replaces the script and forgets earlier requests. */
  script(...steps: ScriptStep[]): this {
    this.steps = [...steps];
    this.router = undefined;
    this.keepRequests = true;
    this.requests.length = 0;
    this.overruns = 0;
    return this;
  }

  /**
   * Answers every request with `router(request)` instead of a script, for as many requests as come
   * (retries included): for tests where many runs interleave and a reply must be a pure function
   * of the request, e.g. routed by the goal and the number of turns so far.
   */
  route(router: (request: ChatRequest) => ScriptedReply | Promise<ScriptedReply>, { keepRequests = true } = {}): this {
    this.router = router;
    this.keepRequests = keepRequests;
    this.steps = [];
    this.requests.length = 0;
    return this;
  }

  /**
   * The benchmarks' mode: every request is answered as the goal of its run says (`goalFor`), and
   * requests are not kept (a benchmark sends thousands). The returned mode records arrivals and
   * tunes the answers.
   */
  goalEncoded(): GoalEncodedMode {
    const mode = new GoalEncodedMode(this);
    this.route((request) => mode.reply(request), { keepRequests: false });
    return mode;
  }

  /**
   * Makes the fake an endpoint that does not take `parameters`: a request carrying one gets a 400
   * naming it, as OpenAI, Azure or llama.cpp word it (the first of them it carries), and uses no
   * scripted reply; it is recorded in `requests` like any other. Holds until called again
   * (`refuse([])`), across `script` and `route`.
   */
  refuse(parameters: RefusableParameter[]): this {
    this.refused = [...parameters];
    return this;
  }

  /** Requests received and not yet answered (a model call in flight). */
  get inFlight(): number {
    return this.pending;
  }

  /** Throws unless every scripted reply was used and nothing more was asked. */
  assertDone(): void {
    if (this.overruns > 0) throw new Error(`The fake model was called ${this.overruns} time(s) more than scripted.`);
    if (this.steps.length > 0) throw new Error(`${this.steps.length} scripted model repl(ies) were never requested.`);
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      return send(res, 404, { error: { message: `fake model: no route ${req.method} ${req.url}` } });
    }
    const arrivedAt = performance.now();
    const request = {
      ...(JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest),
      authorization: req.headers.authorization,
      receivedAt: Date.now(),
      arrivedAt,
    };
    this.received += 1;
    if (this.keepRequests) this.requests.push(request);
    const refusal = refusalOf(request, this.refused);
    if (refusal) return send(res, 400, { error: refusal });
    const step = this.router ?? this.steps.shift();
    if (!step) {
      this.overruns += 1;
      return send(res, 400, { error: { message: 'fake model: the script is exhausted (unexpected model call)' } });
    }
    this.pending += 1;
    try {
      await this.answer(req, res, request, typeof step === 'function' ? await step(request) : step);
    } finally {
      this.pending -= 1;
    }
  }

  private async answer(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    request: ChatRequest,
    reply: ScriptedReply,
  ): Promise<void> {
    if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    if (res.destroyed || req.socket.destroyed) return; // the caller gave up (its activity timed out or was killed)
    if ('drop' in reply) {
      req.socket.destroy();
      return;
    }
    if ('rawBody' in reply) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(reply.rawBody);
      return;
    }
    if ('status' in reply) {
      return send(
        res,
        reply.status,
        {
          error: {
            message: reply.message ?? `fake model: scripted ${reply.status}`,
            ...(reply.code ? { code: reply.code } : {}),
          },
        },
        reply.headers,
      );
    }
    const toolCalls = (reply.toolCalls ?? []).map((call) => ({
      id: call.id ?? `call_${++this.callCounter}`,
      type: 'function',
      function: { name: call.name, arguments: typeof call.args === 'string' ? call.args : JSON.stringify(call.args) },
    }));
    const finishReason = reply.finishReason ?? (toolCalls.length ? 'tool_calls' : 'stop');
    const usage = reply.usage === undefined ? FAKE_USAGE : reply.usage;
    if (request.stream && !reply.stream?.whole) {
      return streamReply(
        req,
        res,
        request,
        { content: reply.content ?? null, reasoning: reply.reasoning, toolCalls, finishReason, usage },
        reply.stream ?? {},
      );
    }
    send(res, 200, {
      id: `chatcmpl-${this.received}`,
      object: 'chat.completion',
      created: 1_700_000_000,
      model: request.model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: reply.content ?? null,
            ...(reply.reasoning ? { reasoning_content: reply.reasoning } : {}),
            ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
          },
          finish_reason: finishReason,
        },
      ],
      ...(usage ? { usage } : {}),
    });
  }
}

function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** The tool messages of a request, as the model saw them. */
export function toolMessages(request: ChatRequest): string[] {
  return request.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
}

/**
 * What a benchmark run asks of the fake model, in its goal (the first user message): `[bench run=ID
 * iters=N calls=K sleep=MS out=BYTES delay=MS]`. While the request holds fewer than `iters`
 * assistant messages (`iters=0`: never stop) the reply is one turn of `calls` parallel calls of
 * `bench_tool({ sleepMs, bytes, call })` (`call` numbers the calls); then it answers `done`. `delay` holds every answer back (a slow
 * model).
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
  return {
    run: fields.run ?? '',
    iters: n('iters'),
    calls: n('calls'),
    sleep: n('sleep'),
    out: n('out'),
    delay: n('delay'),
  };
}

/** Answers for requests without tools: `structured` gets the schema name (goal components) and the request. */
export type StructuredAnswer = (
  schema: string | undefined,
  request: ChatRequest,
) => { content: string; delayMs?: number };

/**
 * The goal-encoded mode of a `FakeModel` (`fake.goalEncoded()`): every reply is a pure function of
 * the request, so any number of runs of any engine can share the fake. A request with tools is a
 * turn of the run its goal names (`Directive`); a request without tools (a summary, a wrap-up, a
 * goal component) is answered by `structured`, or with plain text. The arrival of each run's turns
 * is recorded: the gap between two model calls of a run is one iteration (model call + tool wave +
 * everything the engine adds). Replies come whole, also to requests that ask for a stream.
 */
export class GoalEncodedMode {
  /** Arrival times (performance.now(), ms) of the model calls of each run. */
  readonly arrivals = new Map<string, number[]>();
  structured: StructuredAnswer = () => ({ content: 'done' });
  /** Overrides the delay of the `call`-th model call (1-based, retries count) of a run. */
  delayFor: ((run: string, call: number) => number | undefined) | undefined;
  /** Called when a request arrives (after it is recorded), before it is answered. */
  onRequest: ((run: string | undefined) => void) | undefined;
  /** How many requests arrived since the last `reset()`. */
  requestCount = 0;
  private counter = 0;

  constructor(private readonly fake: FakeModel) {}

  /** `http://127.0.0.1:<port>/v1`, for `OPENAI_BASE_URL`. */
  get baseURL(): string {
    return this.fake.baseURL;
  }

  /** Forgets the recorded arrivals (between scenarios). */
  reset(): void {
    this.arrivals.clear();
    this.requestCount = 0;
  }

  /** The reply to `request` (the fake's router in this mode). */
  reply(request: ChatRequest): ScriptedReply {
    this.requestCount += 1;
    const user = request.messages.find((m) => m.role === 'user');
    const directive = parseDirective(
      typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content ?? ''),
    );
    const turn = directive !== undefined && (request.tools?.length ?? 0) > 0;
    if (turn) {
      const list = this.arrivals.get(directive.run) ?? [];
      list.push(request.arrivedAt ?? performance.now());
      this.arrivals.set(directive.run, list);
    }
    this.onRequest?.(directive?.run);
    let delay = directive?.delay ?? 0;
    if (directive && this.delayFor)
      delay = this.delayFor(directive.run, this.arrivals.get(directive.run)?.length ?? 0) ?? delay;
    const whole = { whole: true } as const;
    if (turn) {
      if (directive.iters > 0 && request.messages.filter((m) => m.role === 'assistant').length >= directive.iters) {
        return { content: 'done', delayMs: delay, stream: whole };
      }
      // Each call is numbered, as a model's calls differ: the loop ends runs that repeat a call.
      const toolCalls = Array.from({ length: directive.calls }, () => {
        const n = ++this.counter;
        return {
          id: `call_${n}`,
          name: 'bench_tool',
          args: { sleepMs: directive.sleep, bytes: directive.out, call: n },
        };
      });
      return { toolCalls, delayMs: delay, stream: whole };
    }
    const answer = this.structured(request.response_format?.json_schema?.name, request);
    return { content: answer.content, delayMs: answer.delayMs ?? delay, stream: whole };
  }
}
