import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebhookBody } from '../../src/contract/webhooks/webhooks';
import { cliFixture, serveProcess, workerProcess, type CliFixture, type LiveCommand } from '../support/cli';
import { eventually } from '../support/wait';
import { webhookReceiver } from '../support/webhook-receiver';

/**
 * What webhooks a run may name, end to end: a `waveloop serve` process and a `waveloop worker`
 * process, both with `WAVELOOP_WEBHOOK_ALLOW` = one receiver's host and port, one redirecting
 * receiver's URL prefix, and `*` (any public address). A run started over HTTP naming the cloud
 * metadata address (as itself or IPv4-mapped), `localhost` or a loopback port (`waveloop serve`
 * itself) is refused with 400 and never starts; a raw client's start is refused by the worker
 * before any model call; an allowed receiver gets its webhook; one that answers 302 is not followed.
 */

let cli: CliFixture;
let receiver: Awaited<ReturnType<typeof webhookReceiver>>;
let redirector: http.Server;
let redirectorUrl = '';
const redirected: string[] = [];
let worker: LiveCommand | undefined;
let serve: LiveCommand | undefined;
let url = '';

beforeAll(async () => {
  cli = await cliFixture('webhook-allow', { worker: false });
  receiver = await webhookReceiver();
  // Answers every request 302, pointing at the receiver.
  redirector = http.createServer((req, res) => {
    redirected.push(req.url ?? '');
    req.resume();
    res.writeHead(302, { location: receiver.url('/landed') }).end();
  });
  await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
  redirectorUrl = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}`;
  const env = {
    ...cli.env,
    WAVELOOP_WEBHOOK_ALLOW: `${new URL(receiver.url('/')).host}, ${redirectorUrl}/hooks/, *`,
  };
  worker = await workerProcess(env);
  ({ serve, url } = await serveProcess({ ...env, WAVELOOP_HTTP_TOKENS: 'alice:alice-token-0001' }));
});
afterAll(async () => {
  serve?.kill('SIGINT');
  worker?.kill('SIGTERM');
  await Promise.all([serve?.done, worker?.done]);
  await new Promise<void>((resolve) => (redirector ? redirector.close(() => resolve()) : resolve()));
  await receiver?.close();
  await cli?.stop();
});

async function api(route: string, body: unknown) {
  const response = await fetch(`${url}${route}`, {
    method: 'POST',
    headers: { authorization: 'Bearer alice-token-0001', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

/** Whether a workflow of `id` was ever started. */
async function started(id: string): Promise<boolean> {
  try {
    await cli.h.client.workflow.getHandle(id).describe();
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

describe('webhooks a run may name', () => {
  it('over HTTP, a webhook at the metadata address (as itself or IPv4-mapped), localhost or a loopback port is a 400 naming it; nothing starts', async () => {
    const servePort = new URL(url).port;
    const receiverPort = new URL(receiver.url('/')).port;
    const refused = [
      [
        'http://169.254.169.254/latest/meta-data',
        'link-local (169.254.0.0/16, where cloud metadata answers) address (169.254.169.254)',
      ],
      [
        'http://[::ffff:169.254.169.254]/',
        'link-local (169.254.0.0/16, where cloud metadata answers), as IPv4-mapped 169.254.169.254 address ([::ffff:a9fe:a9fe])',
      ],
      // The allowed receiver's port, by another name: the entry names 127.0.0.1, not localhost.
      [`http://localhost:${receiverPort}/hook`, 'loopback address (localhost)'],
      // waveloop serve itself.
      [`http://127.0.0.1:${servePort}/api/runs`, 'loopback (127.0.0.0/8) address (127.0.0.1)'],
    ];
    for (const [index, [webhook, why]] of refused.entries()) {
      const workflowId = `webhook-allow-refused-${index}`;
      const answer = await api('/api/runs', { goal: 'Tell me', webhooks: [webhook], workflowId });
      expect(answer, webhook).toEqual({
        status: 400,
        body: {
          error: {
            code: 'bad_request',
            message: `The webhook ${webhook} is refused: it points at a ${why}, and a run may name one only when WAVELOOP_WEBHOOK_ALLOW names its host (${new URL(webhook).host}) or a URL prefix of it.`,
          },
        },
      });
      expect(await started(workflowId), webhook).toBe(false);
    }
    // A goal tree is held to the same list.
    const tree = await api('/api/goals', {
      goal: 'Tell me',
      webhooks: ['http://10.0.0.1/hook'],
      workflowId: 'webhook-allow-tree',
    });
    expect(tree.status).toBe(400);
    expect(tree.body.error.message).toContain(
      'The webhook http://10.0.0.1/hook is refused: it points at a private (10.0.0.0/8) address',
    );
    expect(await started('webhook-allow-tree')).toBe(false);
    // Nothing of this file's started (other files' runs share the server).
    const listed = (await cli.client.runs.list({ limit: 100 })).map((run) => run.workflowId);
    expect(listed.filter((id) => id.startsWith('webhook-allow'))).toEqual([]);
    expect(receiver.received).toEqual([]);
  });

  it('a raw client’s run naming the metadata address fails in resolveRun, before any model call or webhook', async () => {
    const id = 'webhook-allow-raw';
    await cli.client.runs.start(
      { goal: 'Tell me', webhooks: ['http://169.254.169.254/latest/meta-data'] },
      { workflowId: id },
    );
    const failed = await cli.client.runs.result(id).catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(WorkflowFailedError);
    expect(String((failed as WorkflowFailedError).cause?.message)).toContain(
      'The webhook http://169.254.169.254/latest/meta-data is refused: it points at a link-local',
    );
    expect(cli.fake.requests).toEqual([]);
  });

  it('a raw client’s goal tree naming the metadata address fails in resolveGoal, before any model call', async () => {
    const id = 'webhook-allow-raw-tree';
    await cli.client.goals.start(
      { goal: 'Tell me', webhooks: ['http://[::ffff:169.254.169.254]/'] },
      { workflowId: id },
    );
    const failed = await cli.client.goals.result(id).catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(WorkflowFailedError);
    expect(String((failed as WorkflowFailedError).cause?.message)).toContain(
      'The webhook http://[::ffff:169.254.169.254]/ is refused',
    );
    expect(cli.fake.requests).toEqual([]);
  });

  it('an allowed receiver gets the run’s webhook; one that answers 302 is not followed', async () => {
    cli.fake.script({ content: 'Told.' });
    const told = await api('/api/runs', {
      goal: 'Tell me',
      webhooks: [receiver.url('/run')],
      workflowId: 'webhook-allow-told',
    });
    expect(told.status).toBe(201);
    const [delivered] = await eventually(
      () => receiver.received.filter((r) => r.path === '/run'),
      (got) => got.length > 0,
      { problem: 'The allowed receiver never got the webhook.' },
    );
    expect(JSON.parse(delivered.raw) as WebhookBody).toMatchObject({
      event: 'completed',
      workflowId: 'webhook-allow-told',
    });

    cli.fake.script({ content: 'Told again.' });
    const redirecting = await api('/api/runs', {
      goal: 'Tell me again',
      webhooks: [`${redirectorUrl}/hooks/a`],
      workflowId: 'webhook-allow-redirect',
    });
    expect(redirecting.status).toBe(201);
    await cli.client.runs.result('webhook-allow-redirect');
    const delivery = cli.h.client.workflow.getHandle(
      `webhook-allow-redirect/webhook/completed@${redirecting.body.runId as string}`,
    );
    const outcome = await eventually(
      async () => delivery.result().catch(() => undefined),
      (result) => result !== undefined,
    );
    expect(outcome).toEqual([
      {
        undelivered: `The webhook ${redirectorUrl} answered HTTP 302, a redirect to ${receiver.url('/landed')}: webhooks never follow redirects, so it is not sent again (name the URL it points to instead).`,
      },
    ]);
    expect(redirected).toEqual(['/hooks/a']);
    expect(receiver.received.map((r) => r.path)).toEqual(['/run']);
  });
});
