import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostWebhook, type WebhookDeps } from '../../../src/activities/webhooks/post';
import type { PostWebhookInput, WebhookNotice } from '../../../src/contract/webhooks/webhooks';
import { webhookReceiver } from '../../support/webhook-receiver';

const notice: WebhookNotice = {
  event: 'completed',
  workflowId: 'inv-42',
  runId: 'r-1',
  goal: 'Pay the open invoices',
  status: 'completed',
  answer: 'Paid.',
  at: '2026-11-22T10:00:00.000Z',
};

let target: Awaited<ReturnType<typeof webhookReceiver>>;
let redirector: http.Server;
let redirectorUrl = '';
const redirected: string[] = [];
beforeAll(async () => {
  target = await webhookReceiver();
  // Answers every request with a redirect to the target: 302, 307 or 308, as its path says.
  redirector = http.createServer((req, res) => {
    redirected.push(req.url ?? '');
    res.writeHead(Number(req.url?.slice(1, 4)), { location: target.url('/landed?token=secret') }).end();
  });
  await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
  redirectorUrl = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await target.close();
  await new Promise<void>((resolve) => redirector.close(() => resolve()));
});

const post = (input: Omit<PostWebhookInput, 'deliveryId' | 'notice'>, deps: WebhookDeps = {}) =>
  new MockActivityEnvironment().run(createPostWebhook(deps), { deliveryId: 'd-1', notice, ...input });

describe('postWebhook: redirects', () => {
  it.each(['/302', '/307', '/308'])(
    'a %s answer is refused for good, saying where it pointed, and never followed',
    async (path) => {
      await expect(post({ url: `${redirectorUrl}${path}` })).rejects.toMatchObject({
        type: 'WebhookRefused',
        nonRetryable: true,
        message: `The webhook ${redirectorUrl} answered HTTP ${path.slice(1)}, a redirect to ${target.url('/landed')}: webhooks never follow redirects, so it is not sent again (name the URL it points to instead).`,
      });
      expect(redirected.at(-1)).toBe(path);
      expect(target.received).toEqual([]);
    },
  );
});

describe('postWebhook: a URL the run named is checked again as it is posted', () => {
  it('still allowed: posted', async () => {
    const url = target.url('/run');
    await expect(post({ url, runNamed: true }, { allow: [new URL(url).host] })).resolves.toEqual({ status: 200 });
    expect(target.received.map((r) => r.path)).toEqual(['/run']);
  });

  it('no longer allowed, or its name now resolving to a private address: refused for good, saying why, not sent', async () => {
    const before = target.received.length;
    await expect(post({ url: target.url('/run'), runNamed: true }, { allow: [] })).rejects.toMatchObject({
      type: 'WebhookRefused',
      nonRetryable: true,
      message: expect.stringContaining('WAVELOOP_WEBHOOK_ALLOW allows it, and it is not set'),
    });
    const rebound = post(
      { url: `http://hooks.example.test:${new URL(target.url('/')).port}/run`, runNamed: true },
      { allow: ['*'], resolveHost: async () => ['93.184.216.34', '127.0.0.1'] },
    );
    await expect(rebound).rejects.toMatchObject({
      type: 'WebhookRefused',
      nonRetryable: true,
      message: expect.stringContaining('points at a loopback (127.0.0.0/8) address (hooks.example.test → 127.0.0.1)'),
    });
    expect(target.received.length).toBe(before);
  });

  it('its host not resolving: tried again (the record may come)', async () => {
    await expect(
      post(
        { url: 'https://hooks.example.test/run', runNamed: true },
        {
          allow: ['*'],
          resolveHost: async () => {
            throw new Error('getaddrinfo ENOTFOUND hooks.example.test');
          },
        },
      ),
    ).rejects.toMatchObject({ type: 'WebhookUndelivered', nonRetryable: false });
  });

  it('the refusal shows a URL by its origin only (a Slack URL’s path is its secret)', async () => {
    const refused = post({ url: 'slack:https://hooks.slack.com/services/T0/B0/s3cret', runNamed: true }, { allow: [] });
    await expect(refused).rejects.toMatchObject({
      message: expect.stringContaining('https://hooks.slack.com is refused'),
    });
    await expect(refused).rejects.not.toMatchObject({ message: expect.stringContaining('s3cret') });
  });

  it('an operator’s URL (not run-named) is not checked: the worker’s WAVELOOP_WEBHOOKS may point at loopback', async () => {
    await expect(post({ url: target.url('/operator') }, { allow: [] })).resolves.toEqual({ status: 200 });
  });
});
