import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { refusalOf, type RefusableParameter } from './fake-refusals';
import { streamReply, type StreamScript } from './fake-stream';
import { transcriptProblem } from './fake-transcript';

export type { StreamScript } from './fake-stream';
export type { RefusableParameter } from './fake-refusals';

/**
 * The fake OpenAI-compatible model of the tests and the benchmarks: an HTTP server that answers
 * `POST /v1/chat/completions` through the real `openai` client. It is the only fake model.
 *
 * - Scripted (the tests): `script(...)` replies in order. `route(fn, { atMost })` answers by a
 *   function of the request instead (runs that interleave), at most `atMost` times.
 * - Goal-encoded (the benchmarks): `goalEncoded()` answers every request as the run's goal says
 *   (`[bench run=… iters=…]`, see `goalFor`), for any number of runs of any engine at once, and
 *   records when each run's model calls arrive.
 *
 * It is strict, so a test cannot pass by accident. A request beyond the script (or past a route's
 * `atMost`) is answered 400 (non-retryable, so the run fails loudly) and recorded; a reply function
 * that throws is recorded, its request answered 500 with the error's message, and every later
 * request 400 until the check (so the run fails at once). `assertDone()` throws the first such
 * problem, or says which scripted replies were never requested, and forgets what it reported. A
 * test may call it; test/support/fake-model-checks.ts (a vitest setup file) calls it after every
 * test for every fake started, so the test that owns a problem fails with it. `script()` refuses to
 * drop replies a test has not used yet: `reset()` drops them on purpose.
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
  /**
   * The call names a tool the request did not offer, as a model may (a hallucinated or injected
   * tool): allowed only when the script says so; otherwise such a call fails the test.
   */
  unoffered?: true;
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
  /** Response headers (an endpoint's `x-ratelimit-*`, `retry-after`), on an error or a reply alike. */
  headers?: Record<string, string>;
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

/** The fakes started and not yet checked after being stopped (`checkStartedFakes`). */
const startedFakes = new Set<FakeModel>();

/**
 * Runs `assertDone()` on every fake started (in this process) and not yet checked since it was
 * stopped, and throws the first problem found. The tests' setup file calls it after every test
 * (test/support/fake-model-checks.ts).
 */
export function checkStartedFakes(): void {
  let first: unknown;
  for (const fake of [...startedFakes]) {
    if (!fake.running) startedFakes.delete(fake);
    try {
      fake.assertDone();
    } catch (error) {
      first ??= error;
    }
  }
  if (first !== undefined) throw first;
}

type Router = (request: ChatRequest) => ScriptedReply | Promise<ScriptedReply>;

export class FakeModel {
  /** The requests since the last `script`/`route` (none are kept in the goal-encoded mode). */
  readonly requests: ChatRequest[] = [];
  /** How many requests arrived in all. */
  received = 0;
  private keepRequests = true;
  private steps: ScriptStep[] = [];
  private router: { reply: Router; atMost: number; answered: number } | undefined;
  private pending = 0;
  /** Requests beyond the script or the route's limit, described for the failure message. */
  private unexpected: string[] = [];
  /** What reply functions threw (each fails the test; the first is thrown as it was). */
  private thrown: unknown[] = [];
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
    startedFakes.add(this);
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }

  /** Whether the fake is listening (started and not stopped). */
  get running(): boolean {
    return this.server !== undefined;
  }

  /**
   * Replies in order to the next requests, and forgets earlier requests. Throws if replies scripted
   * before were never requested (a test that means to drop them calls `reset()` first).
   */
  script(...steps: ScriptStep[]): this {
    this.refuseToDropUnused('script');
    this.steps = [...steps];
    this.router = undefined;
    this.keepRequests = true;
    this.requests.length = 0;
    return this;
  }

  /**
   * Answers requests with `router(request)` instead of a script, retries included, for tests where
   * many runs interleave and a reply must be a function of the request (routed by the goal and the
   * number of turns so far, say). `atMost`: how many requests the test expects at most; any beyond
   * are answered 400 and fail the test, so a run that keeps calling is caught. Throws, as `script`
   * does, if scripted replies were never requested.
   */
  route(router: Router, { atMost, keepRequests = true }: { atMost: number; keepRequests?: boolean }): this {
    this.refuseToDropUnused('route');
    this.router = { reply: router, atMost, answered: 0 };
    this.keepRequests = keepRequests;
    this.steps = [];
    this.requests.length = 0;
    return this;
  }

  /** Drops the replies not requested yet and the route, on purpose. Problems already recorded still fail the test. */
  reset(): this {
    this.steps = [];
    this.router = undefined;
    return this;
  }

  /**
   * The benchmarks' mode: every request is answered as the goal of its run says (`goalFor`), and
   * requests are not kept (a benchmark sends thousands). The returned mode records arrivals and
   * tunes the answers.
   */
  goalEncoded(): GoalEncodedMode {
    const mode = new GoalEncodedMode(this);
    this.route((request) => mode.reply(request), { atMost: Infinity, keepRequests: false });
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

  /**
   * Throws if a reply function threw (that error, as it was), if the fake was asked for more than
   * scripted (or past a route's `atMost`), or if scripted replies were never requested; forgets what
   * it reports, so each problem fails one test. Called after every test (`checkStartedFakes`).
   */
  assertDone(): void {
    const [thrown, ...moreThrown] = this.thrown.splice(0);
    const unexpected = this.unexpected.splice(0);
    const unused = this.steps.splice(0).map(describeStep);
    if (thrown !== undefined) {
      if (moreThrown.length && thrown instanceof Error) {
        thrown.message += ` (and ${moreThrown.length} more reply function error(s))`;
      }
      throw thrown;
    }
    const problems = [
      ...(unexpected.length
        ? [`The fake model was called ${unexpected.length} time(s) more than scripted: ${unexpected.join('; ')}.`]
        : []),
      ...(unused.length
        ? [`${unused.length} scripted model repl(ies) were never requested: ${unused.join('; ')}.`]
        : []),
    ];
    if (problems.length) throw new Error(problems.join(' '));
  }

  private refuseToDropUnused(caller: string): void {
    const unused = this.steps.splice(0).map(describeStep);
    if (unused.length === 0) return;
    throw new Error(
      `fake model: ${caller}() while ${unused.length} scripted model repl(ies) were never requested (${unused.join('; ')}); call reset() first to drop them on purpose.`,
    );
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    try {
      await this.serve(req, res);
    } catch (error) {
      // A bug of the fake itself (a reply function's error is handled in `serve`): fail the test.
      this.thrown.push(error);
      if (!res.headersSent) send(res, 500, { error: { message: `fake model: ${messageOf(error)}` } });
      else res.destroy();
    }
  }

  private async serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
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
    if (this.thrown.length > 0) {
      // The test has failed already: end the run at once rather than retry into later replies.
      return send(res, 400, {
        error: { message: 'fake model: a reply function threw earlier in this test; the test fails with its error' },
      });
    }
    const refusal = refusalOf(request, this.refused);
    if (refusal) return send(res, 400, { error: refusal });
    // A transcript a real endpoint refuses fails the test: the code under test sent it.
    const problem = transcriptProblem(request.messages);
    if (problem) {
      this.thrown.push(new Error(`fake model: a real endpoint answers 400 to this transcript: ${problem}`));
      return send(res, 400, { error: { message: problem, type: 'invalid_request_error', code: null } });
    }
    const step = this.nextStep();
    if (!step) {
      this.unexpected.push(describeRequest(request));
      const what = this.router ? `more than the route's ${this.router.atMost} requests` : 'the script is exhausted';
      return send(res, 400, { error: { message: `fake model: ${what} (unexpected model call)` } });
    }
    this.pending += 1;
    try {
      let reply: ScriptedReply;
      try {
        reply = typeof step === 'function' ? await step(request) : step;
      } catch (error) {
        this.thrown.push(error);
        return send(res, 500, { error: { message: `fake model: the reply function threw: ${messageOf(error)}` } });
      }
      await this.answer(req, res, request, reply);
    } finally {
      this.pending -= 1;
    }
  }

  /** The step that answers the next request: the route's, while under its limit, or the script's next. */
  private nextStep(): ScriptStep | undefined {
    if (!this.router) return this.steps.shift();
    if (this.router.answered >= this.router.atMost) return undefined;
    this.router.answered += 1;
    return this.router.reply;
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
    const offered = request.tools?.map((tool) => tool.function.name);
    const unoffered = (reply.toolCalls ?? []).filter(
      (call) => offered && !call.unoffered && !offered.includes(call.name),
    );
    if (unoffered.length) {
      // The script, not the code under test, is wrong: a model calls the tools it is offered.
      this.thrown.push(
        new Error(
          `fake model: the script calls ${unoffered.map((c) => c.name).join(', ')}, which the request does not offer (${offered!.join(', ')}); mark the call unoffered: true when that is the point`,
        ),
      );
      return send(res, 400, { error: { message: 'fake model: the script calls a tool the request does not offer' } });
    }
    const toolCalls = (reply.toolCalls ?? []).map((call) => ({
      id: call.id ?? `call_${++this.callCounter}`,
      type: 'function',
      function: { name: call.name, arguments: typeof call.args === 'string' ? call.args : JSON.stringify(call.args) },
    }));
    const finishReason = reply.finishReason ?? (toolCalls.length ? 'tool_calls' : 'stop');
    const usage = reply.usage === undefined ? FAKE_USAGE : reply.usage;
    for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
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

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A request in a failure message: its first user message (the goal), shortened. */
function describeRequest(request: ChatRequest): string {
  const user = request.messages.find((m) => m.role === 'user')?.content ?? '';
  const text = typeof user === 'string' ? user : JSON.stringify(user);
  return `a request of ${request.messages.length} message(s) for "${shorten(text)}"`;
}

/** A scripted step in a failure message. */
function describeStep(step: ScriptStep): string {
  if (typeof step === 'function') return 'a reply function';
  if ('toolCalls' in step && step.toolCalls) return `calls of ${step.toolCalls.map((call) => call.name).join(', ')}`;
  if ('content' in step) return step.content === null ? 'no content' : `"${shorten(step.content)}"`;
  if ('status' in step) return `a ${step.status}`;
  if ('drop' in step) return 'a dropped connection';
  return 'a raw body';
}

function shorten(text: string, max = 80): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
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
 * model). With `tool=NAME` the calls are of that tool instead, with `{ task: "Say done." }`: an
 * agent offered as a tool (docs/agents.md).
 */
export interface Directive {
  run: string;
  iters: number;
  calls: number;
  sleep: number;
  out: number;
  delay: number;
  tool?: string;
}

/** Builds the goal text a run sends to ask the fake for its behaviour. */
export function goalFor(d: Partial<Directive> & { run: string }): string {
  const full: Directive = { iters: 1, calls: 1, sleep: 0, out: 0, delay: 0, ...d };
  const tool = full.tool ? ` tool=${full.tool}` : '';
  return `[bench run=${full.run} iters=${full.iters} calls=${full.calls} sleep=${full.sleep} out=${full.out} delay=${full.delay}${tool}] Use bench_tool as asked.`;
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
    ...(fields.tool ? { tool: fields.tool } : {}),
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
  /** When every request arrived since the last `reset()` (ms since the epoch), answered or refused. */
  readonly seen: number[] = [];
  /**
   * Makes the fake hold a rate limit of its own: a request that would make more than `requests`
   * answered in the last `windowMs` is answered 429 with `retry-after: 1`, and counted in `refused`.
   */
  limit: { requests: number; windowMs: number } | undefined;
  /** The 429s answered under `limit` since the last `reset()`. */
  refused = 0;
  private answeredAt: number[] = [];
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
    this.seen.length = 0;
    this.answeredAt = [];
    this.refused = 0;
    this.limit = undefined;
  }

  /** The reply to `request` (the fake's router in this mode). */
  reply(request: ChatRequest): ScriptedReply {
    this.requestCount += 1;
    const now = Date.now();
    this.seen.push(now);
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
    if (this.limit !== undefined) {
      const { requests, windowMs } = this.limit;
      this.answeredAt = this.answeredAt.filter((at) => at > now - windowMs);
      if (this.answeredAt.length >= requests) {
        this.refused += 1;
        return { status: 429, message: 'fake model: rate limit reached', headers: { 'retry-after': '1' } };
      }
      this.answeredAt.push(now);
    }
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
        if (directive.tool) return { id: `call_${n}`, name: directive.tool, args: { task: 'Say done.' } };
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
