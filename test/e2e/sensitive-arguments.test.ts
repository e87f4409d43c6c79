import * as fs from 'node:fs';
import * as path from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PendingDecision } from '../../src/client/pending';
import type { AuditRecord } from '../../src/contract/audit/records';
import { modelTranscriptQuery } from '../../src/contract/messages';
import { tokenSha256 } from '../../src/settings';
import { cliFixture, serveProcess, waveloop, workerProcess, type CliFixture, type LiveCommand } from '../support/cli';
import { waitForProgress } from '../support/harness';
import { OtlpReceiver } from '../support/otlp-receiver';
import { testProject, type TestProject } from '../support/project';
import { eventually } from '../support/wait';
import { webhookReceiver } from '../support/webhook-receiver';

/**
 * A sensitive argument, end to end: a `waveloop worker` process (webhooks, audit trail, traces with
 * content) and a `waveloop serve` process over a project whose `charge_card` tool marks `cardNumber`
 * sensitive and waits for approval. The card number never appears in clear where people, logs and
 * traces see the call: `pending --json`, the inbox pages, the run's current details and activity
 * summaries, the webhook body, the audit records, the exported spans, the worker's log, the event
 * stream and `show` (but for its transcript: the model's own messages). A person approves with an edit that leaves the card number as shown (its
 * mask): the tool receives the real number, with the edited amount.
 */

const CARD = '4111111111111111';
const MASKED = '•••• 1111';
const TOKENS = { alice: 'alice-token-0001', bob: 'bob-token-00002' };
const PEOPLE = Object.entries(TOKENS).map(([name, token]) => ({ name, tokenSha256: tokenSha256(token) }));

const CONFIG = (dir: string) => `import * as fs from 'node:fs';
import * as path from 'node:path';
import { defineConfig, defineTool } from 'waveloop';
import { z } from 'zod';

export default defineConfig({
  people: ${JSON.stringify(PEOPLE)},
  tools: [
    defineTool({
      name: 'charge_card',
      description: 'Charges a card.',
      parameters: z.object({ cardNumber: z.string(), amount: z.number() }),
      sensitive: ['cardNumber'],
      requiresApproval: true,
      execute: ({ cardNumber, amount }) => {
        fs.appendFileSync(path.join(${JSON.stringify(dir)}, 'charges.log'), cardNumber + ' ' + amount + '\\n');
        return 'charged ' + amount;
      },
    }),
  ],
});
`;

let cli: CliFixture;
let project: TestProject;
let worker: LiveCommand | undefined;
let serve: LiveCommand | undefined;
let url = '';
let hooks: Awaited<ReturnType<typeof webhookReceiver>>;
const spans = new OtlpReceiver();

const cmd = (args: string[]) => waveloop(args, cli.env, { cwd: project.dir });
const get = (route: string) => fetch(`${url}${route}`, { headers: { authorization: `Bearer ${TOKENS.alice}` } });
async function api(person: keyof typeof TOKENS, method: string, route: string, body?: unknown) {
  const response = await fetch(`${url}${route}`, {
    method,
    headers: { authorization: `Bearer ${TOKENS[person]}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

beforeAll(async () => {
  [cli, hooks] = await Promise.all([cliFixture('sensitive', { worker: false }), webhookReceiver(), spans.start()]);
  project = testProject();
  project.write('waveloop.config.ts', CONFIG(project.dir));
  worker = await workerProcess(
    {
      ...cli.env,
      WAVELOOP_WEBHOOKS: hooks.url('/hook'),
      OTEL_EXPORTER_OTLP_ENDPOINT: spans.endpoint,
      WAVELOOP_TRACE_CONTENT: 'true',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    },
    { cwd: project.dir },
  );
  ({ serve, url } = await serveProcess(cli.env, { cwd: project.dir }));
});
afterAll(async () => {
  serve?.kill('SIGINT');
  worker?.kill('SIGTERM');
  await Promise.all([serve?.done, worker?.done]);
  await Promise.all([hooks?.close(), spans.stop()]);
  project?.remove();
  await cli?.stop();
});

describe('sensitive arguments', () => {
  it('a card number is masked in pending, the inbox, the details, summaries, the webhook, the audit trail, spans, logs, the event stream and show; the tool gets it whole, through an edit that left it as shown', async () => {
    const id = 'sensitive-charge';
    cli.fake.script(
      { toolCalls: [{ id: 'call_charge', name: 'charge_card', args: { cardNumber: CARD, amount: 25 } }] },
      { content: 'Charged the card.' },
    );
    const started = await api('alice', 'POST', '/api/runs', { goal: 'Charge the customer', workflowId: id });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const handle = cli.client.runs.handle(id);
    await waitForProgress(cli.h.client, handle, (p) => p.status === 'waiting_for_approval');

    // pending --json, and the status query every client reads.
    const listed = await cmd(['pending', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).not.toContain(CARD);
    const waiting = (JSON.parse(listed.stdout) as PendingDecision[]).find((d) => d.workflowId === id)!;
    expect(waiting).toMatchObject({ tool: 'charge_card', args: { cardNumber: MASKED, amount: 25 } });
    expect(JSON.stringify(await cli.client.runs.progress(id))).not.toContain(CARD);

    // The inbox, its run page, and the HTTP API's run.
    for (const route of ['/', '/inbox/waiting', `/runs/${id}`, `/runs/${id}/view`, `/api/runs/${id}`]) {
      const page = await get(route);
      expect(page.status, route).toBe(200);
      const html = await page.text();
      expect(html, route).not.toContain(CARD);
    }
    expect(await (await get(`/runs/${id}`)).text()).toContain('1111');

    // The run's current details (the Web UI's), and its activity summaries so far.
    const metadata = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
    expect(metadata.currentDetails).toContain(`"cardNumber":"${MASKED}"`);
    expect(metadata.currentDetails).not.toContain(CARD);

    // The webhook that tells of the wait.
    const hook = await eventually(
      async () => hooks.received.find((r) => r.raw.includes('waiting_for_approval')),
      (found) => found !== undefined,
      { problem: 'No waiting_for_approval webhook arrived.' },
    );
    expect(hook!.raw).not.toContain(CARD);
    expect(JSON.parse(hook!.raw)).toMatchObject({ pending: { args: { cardNumber: MASKED, amount: 25 } } });

    // Bob approves with an edit that leaves the card number as shown: the real one is kept.
    const approved = await api('bob', 'POST', `/api/runs/${id}/approvals/call_charge`, {
      approve: true,
      args: { cardNumber: MASKED, amount: 30 },
    });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    const result = await cli.client.runs.result(id);
    expect(result.answer).toBe('Charged the card.');
    expect(fs.readFileSync(path.join(project.dir, 'charges.log'), 'utf8')).toBe(`${CARD} 30\n`);
    expect(JSON.stringify(result)).not.toContain(CARD);
    expect(result.waves[0]!.calls[0]).toMatchObject({
      args: { cardNumber: MASKED, amount: 30 },
      approval: { decision: 'approved', by: 'bob', originalArgs: { cardNumber: MASKED, amount: 25 } },
    });

    // Activity summaries (the Web UI's timeline).
    const history = await handle.fetchHistory();
    const summaries = (history.events ?? [])
      .filter((event) => event.userMetadata?.summary)
      .map((event) => String(defaultPayloadConverter.fromPayload(event.userMetadata!.summary!)));
    expect(summaries.join('\n')).not.toContain(CARD);
    expect(summaries).toContain(`wave 1 · charge_card(cardNumber=${MASKED}, amount=30) · approved by bob`);

    // The audit trail: the decision and the call, both with the card masked.
    const audited = await cmd(['audit', '--json', '--run', id]);
    expect(audited.code, audited.stderr).toBe(0);
    expect(audited.stdout).not.toContain(CARD);
    const records = JSON.parse(audited.stdout) as AuditRecord[];
    expect(records.find((r) => r.kind === 'decision')?.details).toMatchObject({
      decision: 'approve',
      edited: true,
      args: { cardNumber: MASKED, amount: 30 },
      originalArgs: { cardNumber: MASKED, amount: 25 },
    });
    expect(records.find((r) => r.kind === 'tool_call')?.details).toMatchObject({
      args: { cardNumber: MASKED, amount: 30 },
      ok: true,
    });

    // The event stream (replayed whole after the end) and `show`.
    const events = await get(`/api/runs/${id}/events`);
    const stream = await events.text();
    expect(stream).toContain('event: ended');
    expect(stream).not.toContain(CARD);
    const shown = await cmd(['show', id]);
    expect(shown.code, shown.stderr).toBe(0);
    // Its transcript shows the model's tool call masked too; the workers' own read of it has the card.
    const [waves, transcript] = shown.stdout.split('Transcript:');
    expect(waves).toContain(`charge_card(cardNumber=${MASKED}, amount=30)`);
    expect(transcript).toContain(`charge_card({"cardNumber":"${MASKED}","amount":25})`);
    expect(shown.stdout).not.toContain(CARD);
    expect(JSON.stringify(await handle.query(modelTranscriptQuery))).toContain(CARD);

    // The spans the worker exported, content on: the tool's and the model's reply both masked.
    const tool = await eventually(
      async () => spans.ofWorkflow(id).find((span) => span.name === 'execute_tool charge_card'),
      (found) => found !== undefined,
      { problem: 'The worker exported no execute_tool span.' },
    );
    expect(JSON.parse(tool!.attributes['gen_ai.tool.call.arguments'] as string)).toEqual({
      cardNumber: MASKED,
      amount: 30,
    });
    const chat = spans.ofWorkflow(id).find((span) => span.attributes['waveloop.iteration'] === 1)!;
    expect(chat.attributes['gen_ai.output.messages']).toContain(MASKED);
    expect(JSON.stringify(spans.spans)).not.toContain(CARD);

    // The worker's log.
    expect(worker!.stderr() + worker!.stdout()).not.toContain(CARD);
  });
});
