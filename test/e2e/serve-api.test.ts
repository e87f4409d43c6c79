import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WaveloopClient } from '../../src/client/waveloop-client';
import { DELIVER_WEBHOOKS_WORKFLOW } from '../../src/contract/webhooks/webhooks';
import { createHttpApp, startHttpServer, type HttpServer } from '../../src/http';
import { cliFixture, waveloop, waveloopLive, type CliFixture } from '../support/cli';
import { waitForProgress } from '../support/harness';
import { peopleWith } from '../support/people';
import { eventually } from '../support/wait';

/**
 * `waveloop serve`'s HTTP API on the tests' Temporal server, served in this process on a free port
 * over the file's worker and the fake model; one test runs `waveloop serve` itself.
 */

const TOKENS = [
  { name: 'alice', token: 'alice-secret-token' },
  { name: 'bob', token: 'bob-secret-token' },
];
const MAX_BODY = 16 * 1024;

let cli: CliFixture;
let server: HttpServer;
beforeAll(async () => {
  cli = await cliFixture('serve-api');
  server = await startHttpServer({
    client: cli.client,
    people: peopleWith(TOKENS),
    host: '127.0.0.1',
    port: 0,
    maxBodyBytes: MAX_BODY,
    log: () => {},
  });
});
afterAll(async () => {
  await server?.close();
  await cli?.stop();
});

interface Answer {
  status: number;
  body: any;
}

/** A request to the API as `token`'s holder (`null`: without a token). */
async function api(
  method: string,
  path: string,
  { token = TOKENS[0]!.token, body, raw }: { token?: string | null; body?: unknown; raw?: string } = {},
): Promise<Answer> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      ...(body !== undefined || raw !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/**
 * Reads the run's event stream until it ends, or until `until` says so (then it disconnects); with
 * `lastEventId`, as a client that reconnects.
 */
async function readEvents(
  id: string,
  { lastEventId, until }: { lastEventId?: string; until?: (event: EventSourceMessage) => boolean } = {},
): Promise<{ status: number; events: EventSourceMessage[] }> {
  const abort = new AbortController();
  const response = await fetch(`${server.url}/api/runs/${id}/events`, {
    headers: { authorization: `Bearer ${TOKENS[0]!.token}`, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
    signal: abort.signal,
  });
  const events: EventSourceMessage[] = [];
  if (!response.body) return { status: response.status, events };
  let done = false;
  const parser = createParser({
    onEvent: (event) => {
      if (done) return;
      events.push(event);
      if (until?.(event)) done = true;
    },
  });
  const decoder = new TextDecoder();
  const reader = response.body.getReader();
  while (!done) {
    const chunk = await reader.read();
    if (chunk.done) break;
    parser.feed(decoder.decode(chunk.value, { stream: true }));
  }
  abort.abort();
  return { status: response.status, events };
}

const errorOf = (answer: Answer) => [answer.status, answer.body?.error?.code];

describe('waveloop serve: the HTTP API', () => {
  it('approvals: no token is 401 and changes nothing; two people at once: one wins, the other 409; by is the token holder', async () => {
    cli.fake.script(
      { toolCalls: [{ name: 'update_user', args: { id: 2, company: 'EPAM' } }] },
      { content: 'Bob now works at EPAM.' },
    );
    const id = 'serve-approve';
    const started = await api('POST', '/api/runs', { body: { goal: 'Move Bob to EPAM', workflowId: id } });
    expect(started.status).toBe(201);
    expect(started.body).toEqual({ workflowId: id, runId: expect.any(String) });
    expect(errorOf(await api('POST', '/api/runs', { body: { goal: 'Again', workflowId: id } }))).toEqual([
      409,
      'conflict',
    ]);
    await waitForProgress(cli.h.client, cli.client.runs.handle(id), (p) => p.status === 'waiting_for_approval');

    const waiting = await api('GET', `/api/runs/${id}`);
    expect(waiting.status).toBe(200);
    expect(waiting.body).toMatchObject({ workflowId: id, execution: 'RUNNING', status: 'waiting_for_approval' });
    const [decision] = waiting.body.pending;
    expect(decision).toMatchObject({ kind: 'approval', tool: 'update_user', args: { id: 2, company: 'EPAM' } });
    const pending = await api('GET', '/api/pending');
    expect(pending.body.filter((d: { workflowId: string }) => d.workflowId === id)).toEqual([
      expect.objectContaining({ callId: decision.callId, goal: 'Move Bob to EPAM' }),
    ]);

    const approval = `/api/runs/${id}/approvals/${decision.callId}`;
    const unauthenticated = await api('POST', approval, { token: null, body: { approve: true } });
    expect(errorOf(unauthenticated)).toEqual([401, 'unauthorized']);
    expect(errorOf(await api('POST', approval, { token: 'alice-secret-tokeX', body: { approve: true } }))).toEqual([
      401,
      'unauthorized',
    ]);
    expect((await cli.client.runs.progress(id)).pendingApprovals.map((a) => a.callId)).toEqual([decision.callId]);
    expect(await cli.client.runs.decisions(id)).toEqual([]);

    expect(errorOf(await api('POST', approval, { body: { approve: 'yes' } }))).toEqual([400, 'bad_request']);
    expect(errorOf(await api('POST', approval, { raw: '{"approve": tru' }))).toEqual([400, 'bad_request']);
    const large = await api('POST', approval, { body: { approve: false, reason: 'x'.repeat(MAX_BODY) } });
    expect(errorOf(large)).toEqual([413, 'payload_too_large']);
    expect(errorOf(await api('POST', `/api/runs/${id}/approvals/no-such-call`, { body: { approve: true } }))).toEqual([
      404,
      'not_found',
    ]);
    expect(errorOf(await api('POST', `/api/runs/no-such-run/approvals/x`, { body: { approve: true } }))).toEqual([
      404,
      'not_found',
    ]);

    const [a, b] = await Promise.all(
      TOKENS.map(({ token }) => api('POST', approval, { token, body: { approve: true } })),
    );
    expect([a!.status, b!.status].sort()).toEqual([200, 409]);
    const winner = a!.status === 200 ? 'alice' : 'bob';
    expect((a!.status === 200 ? b : a)!.body.error.message).not.toMatch(/grpc|at \w+ \(|\n/i);

    const result = await cli.client.runs.result(id);
    expect(result).toMatchObject({ status: 'completed', answer: 'Bob now works at EPAM.' });
    expect(result.waves[0]!.calls[0]!.approval).toMatchObject({ decision: 'approved', by: winner });
    expect(cli.h.db.prepare('SELECT company FROM users WHERE id = 2').get()).toEqual({ company: 'EPAM' });

    const ended = await api('GET', `/api/runs/${id}`);
    expect(ended.body).toMatchObject({ execution: 'COMPLETED', status: 'completed', pending: [] });
    expect(ended.body.result).toMatchObject({ answer: 'Bob now works at EPAM.' });
    expect(errorOf(await api('POST', approval, { body: { approve: false } }))).toEqual([409, 'conflict']);
    expect(errorOf(await api('POST', `/api/runs/${id}/messages`, { body: { text: 'hi' } }))).toEqual([409, 'conflict']);
    expect(errorOf(await api('POST', `/api/runs/${id}/cancel`))).toEqual([409, 'conflict']);
    expect(errorOf(await api('GET', '/api/runs/no-such-run'))).toEqual([404, 'not_found']);
  });

  it('events: SSE with ids; a reconnect with Last-Event-ID gets only what follows; the stream ends after the result', async () => {
    cli.fake.script(
      { content: 'I must ask first.', toolCalls: [{ name: 'ask_question', args: { question: 'Which company?' } }] },
      { content: 'Noted: Initech.' },
    );
    const id = 'serve-events';
    expect((await api('POST', '/api/runs', { body: { goal: 'Set the company', workflowId: id } })).status).toBe(201);

    // Follow until the question, then go away.
    const first = await readEvents(id, { until: (event) => event.event === 'question' });
    expect(first.status).toBe(200);
    expect(first.events.map((e) => [e.event, e.id])).toEqual([
      ['said', '1.said'],
      ['question', expect.stringMatching(/^1\.question\./)],
    ]);
    const question = JSON.parse(first.events[1]!.data).question;
    expect(question).toMatchObject({ question: 'Which company?' });

    // Reconnect after the question; it is answered meanwhile (by bob): only what follows comes.
    const reconnected = readEvents(id, { lastEventId: first.events[1]!.id });
    const answered = await api('POST', `/api/runs/${id}/answers/${question.callId}`, {
      token: TOKENS[1]!.token,
      body: { answer: 'Initech' },
    });
    expect(answered).toEqual({ status: 200, body: { callId: question.callId, question: 'Which company?' } });
    const rest = (await reconnected).events;
    expect(rest.map((e) => [e.event, e.id])).toEqual([
      ['call', `1.call.${question.callId}`],
      ['ended', 'end'],
    ]);
    const ended = JSON.parse(rest.find((e) => e.event === 'ended')!.data);
    expect(ended.result).toMatchObject({ status: 'completed', answer: 'Noted: Initech.' });
    expect(errorOf(await api('POST', `/api/runs/${id}/answers/${question.callId}`, { body: { answer: 'x' } }))).toEqual(
      [409, 'conflict'],
    );

    // Reconnects after the run ended: after the call, only its end; after its end, 204 (an EventSource stops).
    expect((await readEvents(id, { lastEventId: `1.call.${question.callId}` })).events.map((e) => e.id)).toEqual([
      'end',
    ]);
    expect((await readEvents(id, { lastEventId: 'end' })).status).toBe(204);
    expect(errorOf(await api('GET', '/api/runs/no-such-run/events'))).toEqual([404, 'not_found']);
  });

  it('conversations: messages and end; the list pages with a cursor; goal trees start and show their tree; cancel', async () => {
    cli.fake.script({ content: 'Hello. What shall I look up?' }, { content: 'Bob works at Initech.' });
    const chat = 'serve-chat';
    const body = { goal: 'Chat with me', conversation: true, workflowId: chat };
    expect((await api('POST', '/api/runs', { body })).status).toBe(201);
    const handle = cli.client.runs.handle(chat);
    await waitForProgress(cli.h.client, handle, (p) => p.status === 'waiting_for_message');
    expect(errorOf(await api('POST', `/api/runs/${chat}/messages`, { body: { text: '  ' } }))).toEqual([
      400,
      'bad_request',
    ]);
    expect((await api('POST', `/api/runs/${chat}/messages`, { body: { text: 'Where does Bob work?' } })).status).toBe(
      202,
    );
    await waitForProgress(cli.h.client, handle, (p) => p.status === 'waiting_for_message' && p.iteration === 2);
    expect((await api('POST', `/api/runs/${chat}/end`)).status).toBe(202);
    expect(await cli.client.runs.result(chat)).toMatchObject({ status: 'completed', answer: 'Bob works at Initech.' });

    // A goal tree on a task queue no worker polls: it starts, its tree shows, and it is cancelled.
    const idle = new WaveloopClient(cli.h.client, `serve-idle-${Date.now()}`);
    const idleServer = await startHttpServer({ client: idle, people: peopleWith(TOKENS), host: '127.0.0.1', port: 0 });
    try {
      const call = (method: string, path: string, json?: unknown) =>
        fetch(`${idleServer.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${TOKENS[0]!.token}`, 'content-type': 'application/json' },
          body: json === undefined ? undefined : JSON.stringify(json),
        }).then(async (r) => ({ status: r.status, body: await r.json() }));
      expect((await call('POST', '/api/goals', { goal: '' })).status).toBe(400);
      // An old field name is refused with its new one.
      const renamed = await call('POST', '/api/goals', { objective: 'Plan the offsite', constraints: { maxDepth: 2 } });
      expect(renamed.status).toBe(400);
      expect((renamed.body as { error: { message: string } }).error.message).toMatch(
        /objective: `objective` is now `goal`; constraints: `constraints` is now maxDepth/,
      );
      const goal = await call('POST', '/api/goals', {
        goal: 'Plan the offsite',
        maxDepth: 2,
        workflowId: 'serve-goal',
      });
      expect(goal).toEqual({ status: 201, body: { workflowId: 'serve-goal', runId: expect.any(String) } });
      // The list (the goal tree and the chat at least), a page at a time: the next page from the cursor.
      const page = await api('GET', '/api/runs?limit=1');
      expect(page.status).toBe(200);
      expect(page.body.runs).toHaveLength(1);
      expect(page.body.cursor).toEqual(expect.any(String));
      const next = await api('GET', `/api/runs?limit=1&cursor=${page.body.cursor}`);
      expect(next.body.runs).toHaveLength(1);
      expect(next.body.runs[0].workflowId).not.toBe(page.body.runs[0].workflowId);
      const completed = await api('GET', '/api/runs?status=completed&limit=50');
      expect(completed.body.runs.map((r: { workflowId: string }) => r.workflowId)).toContain(chat);
      expect(errorOf(await api('GET', '/api/runs?status=sleeping'))).toEqual([400, 'bad_request']);
      expect(errorOf(await api('GET', '/api/runs?cursor=%21%21'))).toEqual([400, 'bad_request']);
      expect(errorOf(await api('GET', '/api/runs?cursor=AAAA'))).toEqual([400, 'bad_request']);
      const otherFilter = `/api/runs?status=completed&limit=1&cursor=${page.body.cursor}`;
      expect(errorOf(await api('GET', otherFilter))).toEqual([400, 'bad_request']);
      const tree = await call('GET', '/api/goals/serve-goal/tree');
      expect(tree.status).toBe(200);
      expect(tree.body).toMatchObject({ goal: 'Plan the offsite', execution: 'RUNNING', children: [] });
      // No worker serves it: a decision is refused, and nothing is sent.
      expect(await call('POST', '/api/runs/serve-goal/messages', { text: 'hello' })).toEqual({
        status: 503,
        body: { error: { code: 'no_worker', message: expect.stringContaining('No worker') } },
      });
      expect((await call('POST', '/api/runs/serve-goal/cancel')).status).toBe(202);
      const history = await cli.client.runs.handle('serve-goal').fetchHistory();
      expect(history.events!.some((e) => e.workflowExecutionCancelRequestedEventAttributes)).toBe(true);
    } finally {
      await idleServer.close();
      await cli.client.runs
        .handle('serve-goal')
        .terminate('test done')
        .catch(() => undefined);
    }
  });

  it('edges: edited arguments of the wrong type are a 400 and the call waits on; SSE needs a token; a reconnect in the middle of a wave repeats nothing; a failed run sends failed', async () => {
    cli.fake.script(
      {
        toolCalls: [
          { id: 'call_s', name: 'search_users', args: { name: 'Bob' } },
          { id: 'call_u', name: 'update_user', args: { id: 2, company: 'EPAM' } },
          { id: 'call_g', name: 'get_user', args: { id: 2 } },
        ],
      },
      { content: 'Bob moved.' },
    );
    const id = 'serve-edges';
    expect(
      (await api('POST', '/api/runs', { body: { goal: 'Move Bob', workflowId: id, agent: 'back-office' } })).status,
    ).toBe(201);
    // Follow until the first call of the wave has settled, then go away.
    const first = await readEvents(id, { until: (event) => event.event === 'call' });
    await waitForProgress(cli.h.client, cli.client.runs.handle(id), (p) => p.status === 'waiting_for_approval');

    expect((await fetch(`${server.url}/api/runs/${id}/events`)).status).toBe(401);
    const wrong = await api('POST', `/api/runs/${id}/approvals/call_u`, {
      body: { approve: true, args: { id: 'two', company: 5 } },
    });
    expect(wrong.status).toBe(400);
    expect((await cli.client.runs.progress(id)).pendingApprovals.map((a) => a.callId)).toEqual(['call_u']);

    const rest = readEvents(id, { lastEventId: first.events.at(-1)!.id });
    expect((await api('POST', `/api/runs/${id}/approvals/call_u`, { body: { approve: true } })).status).toBe(200);
    const ids = [...first.events, ...(await rest).events].map((e) => e.id);
    expect(ids.filter((eventId, i) => ids.indexOf(eventId) !== i)).toEqual([]);
    for (const call of ['call_s', 'call_u', 'call_g']) expect(ids).toContain(`1.call.${call}`);
    expect(ids.at(-1)).toBe('end');

    const failing = 'serve-edges-failed';
    await cli.client.runs.start({ goal: 'Nobody runs this', agent: 'no-such-agent' }, { workflowId: failing });
    const failed = await readEvents(failing, { until: (event) => event.event === 'failed' });
    expect(failed.events.at(-1)).toMatchObject({ event: 'failed', id: 'end' });
    expect(JSON.parse(failed.events.at(-1)!.data).failure).toContain('Unknown agent "no-such-agent"');
  });

  it("the inbox's run page of a workflow that is no run (a webhook's delivery) is 404, not a redirect to itself", async () => {
    const id = 'serve-not-a-run';
    await cli.client.temporal.workflow.execute(DELIVER_WEBHOOKS_WORKFLOW, {
      taskQueue: cli.taskQueue,
      workflowId: id,
      args: [{ deliveryId: id, urls: [], notice: {} }],
    });
    const page = await fetch(`${server.url}/runs/${id}`, {
      headers: { authorization: `Bearer ${TOKENS[0]!.token}` },
      redirect: 'manual',
    });
    expect(page.status).toBe(404);
    expect(await page.text()).toContain(`${id} is a deliverWebhooks workflow, not a run`);
  });

  it('the OpenAPI document lists every route, behind the token; unknown routes are 404 JSON; CORS only for --cors', async () => {
    expect(errorOf(await api('GET', '/api/openapi.json', { token: null }))).toEqual([401, 'unauthorized']);
    const doc = await api('GET', '/api/openapi.json');
    expect(Object.keys(doc.body.paths).sort()).toEqual([
      '/api/decided',
      '/api/goals',
      '/api/goals/{id}/tree',
      '/api/pending',
      '/api/runs',
      '/api/runs/{id}',
      '/api/runs/{id}/answers/{callId}',
      '/api/runs/{id}/approvals/{callId}',
      '/api/runs/{id}/cancel',
      '/api/runs/{id}/effects',
      '/api/runs/{id}/end',
      '/api/runs/{id}/events',
      '/api/runs/{id}/messages',
      '/api/runs/{id}/outcomes/{callId}',
      '/api/runs/{id}/undo',
    ]);
    expect(doc.body.paths['/api/runs'].post.requestBody.content['application/json'].schema.properties).toHaveProperty(
      'maxIterations',
    );
    expect(errorOf(await api('GET', '/api/nothing'))).toEqual([404, 'not_found']);

    const preflight = {
      method: 'OPTIONS',
      headers: { origin: 'https://ops.example', 'access-control-request-method': 'POST' },
    };
    const closed = createHttpApp({ client: cli.client, people: peopleWith(TOKENS) });
    expect((await closed.request('/api/pending', preflight)).headers.get('access-control-allow-origin')).toBeNull();
    const open = createHttpApp({ client: cli.client, people: peopleWith(TOKENS), cors: 'https://ops.example' });
    expect((await open.request('/api/pending', preflight)).headers.get('access-control-allow-origin')).toBe(
      'https://ops.example',
    );
  });

  it('`waveloop serve` without people makes a token and prints a URL with it; killed and started again it loses nothing; beyond loopback without people it refuses', async () => {
    const refused = await waveloop(['serve', '--listen', '0.0.0.0:0'], cli.env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('refuses to listen on 0.0.0.0, beyond this machine, without people');

    cli.fake.script(
      { toolCalls: [{ name: 'update_user', args: { id: 3, company: 'Globex' } }] },
      { content: 'Carol now works at Globex.' },
    );
    const id = 'serve-restart';
    await cli.client.runs.start({ goal: 'Move Carol to Globex' }, { workflowId: id });
    await waitForProgress(cli.h.client, cli.client.runs.handle(id), (p) => p.status === 'waiting_for_approval');
    /** `waveloop serve` on a free port: its URL and the token it made. */
    const serve = async () => {
      const serving = waveloopLive(['serve', '--listen', '127.0.0.1:0'], cli.env);
      const [, url, token] = await eventually(
        async () => /(http:\/\/127\.0\.0\.1:\d+)\/\?token=(\S+)/.exec(serving.stdout()) ?? [],
        (match) => match.length > 0,
      );
      const pendingHere = async (): Promise<Array<{ workflowId: string; callId: string }>> => {
        const response = await fetch(`${url}/api/pending`, { headers: { authorization: `Bearer ${token}` } });
        return ((await response.json()) as Array<{ workflowId: string; callId: string }>).filter(
          (d) => d.workflowId === id,
        );
      };
      return { serving, url: url!, token: token!, pendingHere };
    };

    const first = await serve();
    // The file's worker polls the task queue, and serve says so (not that it has none).
    await eventually(first.serving.stderr, (printed) =>
      printed.includes(`A worker polls task queue "${cli.taskQueue}"`),
    );
    expect(first.serving.stderr()).not.toContain('No worker');
    const waiting = await first.pendingHere();
    expect(waiting).toEqual([expect.objectContaining({ kind: 'approval', tool: 'update_user' })]);
    expect((await fetch(`${first.url}/api/pending`)).status).toBe(401);
    first.serving.kill('SIGKILL');
    await first.serving.done;

    // Decisions live in Temporal: another serve finds the call waiting and decides it.
    const second = await serve();
    try {
      expect(second.token).not.toBe(first.token);
      const pending = await second.pendingHere();
      expect(pending).toEqual(waiting);
      const approved = await fetch(`${second.url}/api/runs/${id}/approvals/${pending[0]!.callId}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${second.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ approve: true }),
      });
      expect(approved.status).toBe(200);
      expect(await cli.client.runs.result(id)).toMatchObject({ answer: 'Carol now works at Globex.' });
    } finally {
      second.serving.kill('SIGINT');
    }
    const { code, stderr } = await second.serving.done;
    expect(code, stderr).toBe(0);
  });

  it('`waveloop serve --worker` serves its task queue with a worker of its own; the tokens are never printed', async () => {
    const queue = `serve-worker-${Date.now()}`;
    const env = { ...cli.env, WAVELOOP_TASK_QUEUE: queue, WAVELOOP_HTTP_TOKENS: 'carol:carols-secret:ops' };
    const serving = waveloopLive(['serve', '--worker', '--listen', '127.0.0.1:0'], env);
    try {
      const [, url] = await eventually(
        async () => /on (http:\/\/127\.0\.0\.1:\d+)\/api/.exec(serving.stdout()) ?? [],
        (match) => match.length > 0,
      );
      cli.fake.script({ content: 'Done.' });
      const started = await fetch(`${url}/api/runs`, {
        method: 'POST',
        headers: { authorization: 'Bearer carols-secret', 'content-type': 'application/json' },
        body: JSON.stringify({ goal: 'Say done', workflowId: 'serve-own-worker' }),
      });
      expect(started.status).toBe(201);
      const own = new WaveloopClient(cli.h.client, queue);
      expect(await own.runs.result('serve-own-worker')).toMatchObject({ answer: 'Done.' });
      // Who started it is the token's person, in its status and its input.
      expect((await own.runs.progress('serve-own-worker')).startedBy).toBe('carol');
    } finally {
      serving.kill('SIGINT');
    }
    const { code, stdout, stderr } = await serving.done;
    expect(code, stderr).toBe(0);
    expect(stderr).toContain(`A worker in this process serves task queue "${queue}"`);
    expect(stderr).toContain('People: carol (ops).');
    expect(stdout + stderr).not.toContain('carols-secret');
  });
});
