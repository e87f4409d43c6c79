import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostWebhook } from '../../../src/activities/webhooks/post';
import { webhookSignature } from '../../../src/activities/webhooks/signature';
import type { WebhookNotice } from '../../../src/contract/webhooks/webhooks';
import { freePort } from '../../support/ports';
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

let receiver: Awaited<ReturnType<typeof webhookReceiver>>;
beforeAll(async () => {
  receiver = await webhookReceiver((path) => Number(path.slice(1)));
});
afterAll(() => receiver.close());

const post = (path: string, deps = {}) =>
  new MockActivityEnvironment().run(createPostWebhook(deps), { deliveryId: 'd-1', url: receiver.url(path), notice });

describe('postWebhook', () => {
  it('postWebhook: the body, signed at the attempt’s time, with the delivery id and the event in headers; 2xx delivers', async () => {
    await expect(post('/204', { secret: 'whsec', now: () => 1_790_000_000_500 })).resolves.toEqual({ status: 204 });
    const got = receiver.received.at(-1)!;
    expect(JSON.parse(got.raw)).toEqual(notice);
    expect(got.headers).toMatchObject({
      'content-type': 'application/json',
      'x-waveloop-delivery': 'd-1',
      'x-waveloop-event': 'completed',
      'x-waveloop-signature': webhookSignature('whsec', 1_790_000_000, got.raw),
    });
  });

  it('postWebhook: without a secret the webhook is sent unsigned', async () => {
    await post('/200');
    expect(receiver.received.at(-1)!.headers).not.toHaveProperty('x-waveloop-signature');
  });

  it('postWebhook: a 4xx other than 408 and 429 is refused for good; 408, 429, 5xx and no answer are tried again', async () => {
    await expect(post('/410')).rejects.toMatchObject({ type: 'WebhookRefused', nonRetryable: true });
    for (const status of ['/408', '/429', '/503'])
      await expect(post(status), status).rejects.toMatchObject({ type: 'WebhookUndelivered', nonRetryable: false });
    // Nothing listens on the port: refused now, perhaps not once the receiver is back.
    await expect(postTo(`http://127.0.0.1:${await freePort()}/x`)).rejects.toMatchObject({
      type: 'WebhookUndelivered',
      nonRetryable: false,
      message: expect.stringContaining('could not be reached'),
    });
    // A host name that does not resolve (ENOTFOUND): its DNS record may come, the notice is kept.
    await expect(postTo('http://no-such-host.invalid/x')).rejects.toMatchObject({
      type: 'WebhookUndelivered',
      nonRetryable: false,
    });
  });

  it('postWebhook: a URL fetch never requests (a port the Fetch standard blocks, a password in it) fails for good, saying why', async () => {
    for (const port of [1, 25, 6000])
      await expect(postTo(`http://127.0.0.1:${port}/x`), `port ${port}`).rejects.toMatchObject({
        type: 'WebhookRefused',
        nonRetryable: true,
        message: `The webhook http://127.0.0.1:${port} cannot be sent: fetch never sends to port ${port} (a port the Fetch standard blocks); use another port.`,
      });
    const withPassword = postTo(`${receiver.url('/200').replace('://', '://hook:s3cret@')}`);
    await expect(withPassword).rejects.toMatchObject({
      type: 'WebhookRefused',
      nonRetryable: true,
      message: expect.stringContaining('fetch does not send a request to a URL with a user name or password in it'),
    });
    await expect(withPassword).rejects.not.toMatchObject({ message: expect.stringContaining('s3cret') });
  });
});

/** `postWebhook` of the notice to `url`, as one attempt of the activity. */
function postTo(url: string): Promise<unknown> {
  return new MockActivityEnvironment().run(createPostWebhook({}), { deliveryId: 'd', url, notice });
}
