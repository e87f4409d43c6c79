import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebhookBody } from '../../src/contract/webhooks/webhooks';
import { cliFixture, workerProcess, type CliFixture, type LiveCommand } from '../support/cli';
import { assess, goalModel } from '../support/goal-model';
import { recordHistory } from '../support/history';
import { eventually } from '../support/wait';
import { signatureHolds, webhookReceiver } from '../support/webhook-receiver';

/**
 * Webhooks as a receiver gets them: a `waveloop worker` process, configured by the environment
 * (`WAVELOOP_WEBHOOKS` with a plain and a Slack-shaped URL, `WAVELOOP_WEBHOOK_SECRET`,
 * `WAVELOOP_INBOX_URL`; `WAVELOOP_WEBHOOK_ALLOW` for the goal tree's own URL), runs the demo's `update_user`, which waits for approval; a real HTTP
 * receiver answers the first delivery 500, then 200. The worker is killed while the call waits and
 * another takes the run over.
 */

const SECRET = 'whsec-test';
let cli: CliFixture;
let receiver: Awaited<ReturnType<typeof webhookReceiver>>;
let worker: LiveCommand | undefined;
/** While true, `/flaky` answers every delivery 500. */
let flaky = false;

async function startWorker(): Promise<void> {
  worker = await workerProcess({
    ...cli.env,
    WAVELOOP_WEBHOOKS: `${receiver.url('/hook')}, slack:${receiver.url('/slack')}`,
    WAVELOOP_WEBHOOK_SECRET: SECRET,
    WAVELOOP_INBOX_URL: 'http://127.0.0.1:8080/',
    // The goal tree's own webhook (its input's, not the operator's) must be allowed: the receiver's host and port.
    WAVELOOP_WEBHOOK_ALLOW: new URL(receiver.url('/')).host,
  });
}

beforeAll(async () => {
  cli = await cliFixture('webhooks', { worker: false });
  // The first delivery to /hook fails with a 500; every other request is taken.
  receiver = await webhookReceiver((path, count) =>
    (path === '/hook' && count === 0) || (path === '/flaky' && flaky) ? 500 : 200,
  );
  await startWorker();
});
afterAll(async () => {
  worker?.kill('SIGTERM');
  await worker?.done;
  await receiver?.close();
  await cli?.stop();
});

const hooks = () => receiver.received.filter((r) => r.path === '/hook');
const bodyOf = (raw: string) => JSON.parse(raw) as WebhookBody;

describe('webhooks', () => {
  it('a call waiting for approval is told, signed, retried after a 500 under the same delivery id, never told twice across a worker kill; the end is told once; Slack gets its shape', async () => {
    const id = 'webhooks-approval';
    cli.fake.script(
      { toolCalls: [{ id: 'call_move', name: 'update_user', args: { id: 1, company: 'EPAM' } }] },
      { content: 'Moved user 1 to EPAM.' },
    );
    await cli.client.runs.start({ goal: 'Move user 1 to EPAM', startedBy: 'alice' }, { workflowId: id });

    // The first delivery is answered 500, the retry 200, with the same delivery id and body.
    const tries = await eventually(hooks, (got) => got.some((r) => r.answered === 200), {
      problem: 'The waiting_for_approval webhook was never delivered.',
    });
    expect(tries.map((r) => r.answered)).toEqual([500, 200]);
    const [first, retry] = tries;
    const deliveryId = first.headers['x-waveloop-delivery'] as string;
    expect(retry.headers['x-waveloop-delivery']).toBe(deliveryId);
    expect(retry.raw).toBe(first.raw);
    for (const got of tries) {
      expect(got.headers['x-waveloop-event']).toBe('waiting_for_approval');
      expect(signatureHolds(got.headers['x-waveloop-signature'] as string, got.raw, SECRET)).toBe(true);
      expect(signatureHolds(got.headers['x-waveloop-signature'] as string, got.raw, 'another secret')).toBe(false);
    }
    const waiting = bodyOf(first.raw);
    expect(waiting).toEqual({
      event: 'waiting_for_approval',
      workflowId: id,
      runId: expect.any(String),
      goal: 'Move user 1 to EPAM',
      startedBy: 'alice',
      pending: {
        callId: 'call_move',
        tool: 'update_user',
        args: { id: 1, company: 'EPAM' },
        // The tool's preview, read when the call began to wait: whose record, and what changes.
        preview: {
          text: 'Alice Johnson (user 1)',
          changes: [{ field: 'company', before: 'Acme Corp', after: 'EPAM' }],
        },
      },
      link: `http://127.0.0.1:8080/runs/${id}`,
      at: expect.any(String),
    });

    // Slack-compatible receivers get a Slack message: the goal, the tool and its arguments, the link.
    const slack = await eventually(
      () => receiver.received.filter((r) => r.path === '/slack'),
      (got) => got.length > 0,
    );
    expect(slack).toHaveLength(1);
    const message = JSON.parse(slack[0].raw) as { text: string; blocks: Array<{ text: { text: string } }> };
    expect(message.text).toBe(
      `A call waits for approval · ${id}: Move user 1 to EPAM http://127.0.0.1:8080/runs/${id}`,
    );
    const shown = message.blocks.map((block) => block.text.text).join('\n');
    expect(shown).toContain('*Goal:* Move user 1 to EPAM');
    expect(shown).toContain('*Tool:* `update_user` {"id":1,"company":"EPAM"}');
    expect(shown).toContain('*Started by:* alice');
    expect(shown).toContain('*Would change:* company: Acme Corp → EPAM');
    expect(shown).toContain(`<http://127.0.0.1:8080/runs/${id}|Open in the inbox>`);

    // The delivery has ended; the worker dies while the call waits, and another takes the run over.
    await eventually(
      async () => (await cli.h.client.workflow.getHandle(deliveryId).describe()).status.name,
      (status) => status === 'COMPLETED',
    );
    worker!.kill('SIGKILL');
    await worker!.done;
    await startWorker();
    await cli.client.runs.approve(id, 'call_move', { by: 'alice' });
    expect((await cli.client.runs.result(id)).status).toBe('completed');
    // Replayed in CI (test/replay): a run that starts deliverWebhooks children, and one delivery.
    await recordHistory('webhooks-approval', cli.h.client.workflow.getHandle(id));
    await recordHistory('webhooks-delivery', cli.h.client.workflow.getHandle(deliveryId));

    const ended = await eventually(hooks, (got) => got.some((r) => r.headers['x-waveloop-event'] === 'completed'), {
      problem: 'The completed webhook was never delivered.',
    });
    expect(bodyOf(ended.at(-1)!.raw)).toMatchObject({
      event: 'completed',
      workflowId: id,
      status: 'completed',
      answer: 'Moved user 1 to EPAM.',
      link: `http://127.0.0.1:8080/runs/${id}`,
    });
    // One delivery id for each event, and no event told under two: the kill made no second notice.
    const byEvent = new Map<string, Set<string>>();
    for (const got of hooks()) {
      const event = got.headers['x-waveloop-event'] as string;
      byEvent.set(event, (byEvent.get(event) ?? new Set()).add(got.headers['x-waveloop-delivery'] as string));
    }
    expect([...byEvent].map(([event, ids]) => [event, ids.size])).toEqual([
      ['waiting_for_approval', 1],
      ['completed', 1],
    ]);
    expect(hooks().filter((r) => r.headers['x-waveloop-delivery'] === deliveryId)).toHaveLength(2);

    // The deliveries are nobody's run: the list shows the run, and none of them.
    const listed = (await cli.client.runs.list()).map((run) => run.workflowId);
    expect(listed).toContain(id);
    expect(listed.filter((listedId) => listedId.startsWith(`${id}/`))).toEqual([]);
  });

  it('a goal tree: its tool loop tells its wait, naming the tree; the root tells how the tree ended; the tool loop tells no end of its own', async () => {
    const treeId = 'webhooks-tree';
    const goal = 'Move user 2 to EPAM';
    const router = goalModel({
      [goal]: {
        assessment: [assess.tools('update the user')],
        agent: [
          { toolCalls: [{ id: 'call_tree', name: 'update_user', args: { id: 2, company: 'EPAM' } }] },
          { content: 'Moved user 2 to EPAM.' },
        ],
      },
    });
    cli.fake.script(...router.steps);
    await cli.client.goals.start({ goal, webhooks: [receiver.url('/tree')] }, { workflowId: treeId });

    const tree = () => receiver.received.filter((r) => r.path === '/tree').map((r) => bodyOf(r.raw));
    const [waiting] = await eventually(tree, (got) => got.length > 0);
    expect(waiting).toMatchObject({
      event: 'waiting_for_approval',
      pending: { callId: 'call_tree', tool: 'update_user' },
      root: { workflowId: treeId, link: `http://127.0.0.1:8080/runs/${treeId}` },
    });
    await cli.client.runs.approve(waiting.workflowId, 'call_tree', { by: 'alice' });
    const told = await eventually(tree, (got) => got.some((body) => body.event === 'completed'));
    expect(told.map((body) => [body.event, body.workflowId])).toEqual([
      ['waiting_for_approval', waiting.workflowId],
      ['completed', treeId],
    ]);
    expect(told[1]).toMatchObject({
      goal,
      status: 'achieved',
      link: `http://127.0.0.1:8080/runs/${treeId}`,
    });
    router.assertDone();
  });

  it('a worker killed while a delivery keeps getting 500s: the next worker delivers it under the same id; cancelled and failed are told once each', async () => {
    const id = 'webhooks-flaky';
    const flakyHook = receiver.url('/flaky');
    const told = (workflowId: string) =>
      receiver.received.filter((r) => r.path === '/flaky' && bodyOf(r.raw).workflowId === workflowId);
    flaky = true;
    cli.fake.script({ toolCalls: [{ id: 'call_flaky', name: 'update_user', args: { id: 3, company: 'EPAM' } }] });
    await cli.client.runs.start({ goal: 'Move user 3 to EPAM', webhooks: [flakyHook] }, { workflowId: id });

    // Two attempts answered 500; the worker dies while the delivery waits for its next retry.
    await eventually(
      () => told(id),
      (got) => got.length >= 2,
      { problem: 'The delivery was not tried twice.' },
    );
    worker!.kill('SIGKILL');
    await worker!.done;
    flaky = false;
    await startWorker();
    const delivered = await eventually(
      () => told(id),
      (got) => got.some((r) => r.answered === 200),
      {
        attempts: 600,
        problem: 'The waiting_for_approval webhook was never delivered after the kill.',
      },
    );
    expect(new Set(delivered.map((r) => r.headers['x-waveloop-delivery'])).size).toBe(1);
    expect(delivered.every((r) => r.raw === delivered[0].raw)).toBe(true);

    // Cancelled while it waits: told once.
    await cli.client.runs.cancel(id);
    await eventually(
      () => told(id),
      (got) => got.some((r) => bodyOf(r.raw).event === 'cancelled'),
    );

    // A run whose model refuses its key fails: told once, with why.
    const failedId = 'webhooks-failed';
    cli.fake.script({ status: 401, message: 'Incorrect API key provided' });
    await cli.client.runs.start({ goal: 'Move user 4 to EPAM', webhooks: [flakyHook] }, { workflowId: failedId });
    const failed = await eventually(
      () => told(failedId),
      (got) => got.length > 0,
    );
    expect(bodyOf(failed[0].raw)).toMatchObject({ event: 'failed', workflowId: failedId });
    expect(String(bodyOf(failed[0].raw).error)).toContain('Incorrect API key');

    // Once each: one delivery id per event, none lost.
    const events = [...told(id), ...told(failedId)].filter((r) => r.answered === 200);
    const ids = new Map<string, Set<string>>();
    for (const got of events) {
      const key = `${bodyOf(got.raw).workflowId} ${got.headers['x-waveloop-event']}`;
      ids.set(key, (ids.get(key) ?? new Set()).add(got.headers['x-waveloop-delivery'] as string));
    }
    expect([...ids].map(([key, delivery]) => [key, delivery.size])).toEqual([
      [`${id} waiting_for_approval`, 1],
      [`${id} cancelled`, 1],
      [`${failedId} failed`, 1],
    ]);
    expect(events).toHaveLength(3);
  }, 120_000);
});
