import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EffectLedger } from '../../src/client/effects';
import type { PendingDecision } from '../../src/client/pending';
import type { UndoReport } from '../../src/client/undo';
import type { AuditRecord } from '../../src/contract/audit/records';
import type { WebhookBody } from '../../src/contract/webhooks/webhooks';
import { startHttpServer, type HttpServer } from '../../src/http';
import { tokenSha256 } from '../../src/settings';
import { cliFixture, waveloop, waveloopLive, workerProcess, type CliFixture, type LiveCommand } from '../support/cli';
import { peopleWith } from '../support/people';
import { testProject, type TestProject } from '../support/project';
import { eventually } from '../support/wait';
import { webhookReceiver } from '../support/webhook-receiver';

/**
 * An undo passes through the tool's approval rules (docs/effects.md#undo-approvals), end to end on a
 * `waveloop worker` process: a payment that waited for approval in its run waits again when its run
 * is undone, under `undo:<run>` in `waveloop pending`, decided by `waveloop approve` / `deny` as the
 * rule says (finance, four eyes: the undo's asker may not approve it). A note that did not wait is
 * undone at once. Every call and every undo writes a line to `ledger.log`.
 */

const PEOPLE = [
  { name: 'alice', groups: ['finance'] },
  { name: 'bob', groups: ['finance'] },
  { name: 'carol', groups: ['ops'] },
];
const token = (name: string) => `${name}-undo-approvals-token`;
const DECLARED = PEOPLE.map((person) => ({ ...person, tokenSha256: tokenSha256(token(person.name)) }));

const CONFIG = (dir: string) => `import * as fs from 'node:fs';
import * as path from 'node:path';
import { defineConfig, defineTool } from 'waveloop';
import { z } from 'zod';

const log = (line: string) => fs.appendFileSync(path.join(${JSON.stringify(dir)}, 'ledger.log'), line + '\\n');

export default defineConfig({
  people: ${JSON.stringify(DECLARED)},
  tools: [
    defineTool({
      name: 'pay_invoice',
      description: 'Pays an invoice.',
      parameters: z.object({ invoice: z.string(), amount: z.number() }),
      requiresApproval: { reason: 'a payment', approvers: ['finance'], fourEyes: true },
      execute: ({ invoice, amount }) => { log('pay ' + invoice + ' ' + amount); return 'paid ' + invoice; },
      undo: ({ invoice, amount }, result, { startedBy }) => { log('refund ' + invoice + ' ' + amount + ' asked by ' + startedBy); return 'refunded ' + invoice; },
    }),
    defineTool({
      name: 'note_customer',
      description: 'Notes something on a customer.',
      parameters: z.object({ text: z.string() }),
      execute: ({ text }) => { log('note ' + text); return 'noted'; },
      undo: ({ text }) => { log('unnote ' + text); return 'note removed'; },
    }),
  ],
});
`;

let cli: CliFixture;
let project: TestProject;
let worker: LiveCommand | undefined;
let server: HttpServer;
let receiver: Awaited<ReturnType<typeof webhookReceiver>>;
const cmd = (args: string[]) => waveloop(args, cli.env, { cwd: project.dir });
const lines = (): string[] => {
  const file = path.join(project.dir, 'ledger.log');
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n') : [];
};

beforeAll(async () => {
  cli = await cliFixture('undo-approvals', { worker: false });
  project = testProject();
  project.write('waveloop.config.ts', CONFIG(project.dir));
  receiver = await webhookReceiver();
  worker = await workerProcess({ ...cli.env, WAVELOOP_WEBHOOKS: receiver.url('/hook') }, { cwd: project.dir });
  const people = peopleWith(PEOPLE.map(({ name, groups }) => ({ name, groups, token: token(name) })));
  server = await startHttpServer({ client: cli.client, people, host: '127.0.0.1', port: 0, log: () => {} });
});
afterAll(async () => {
  await server?.close();
  await receiver?.close();
  worker?.kill('SIGTERM');
  await worker?.done;
  project?.remove();
  await cli?.stop();
});

/**
 * Run `id`, started by alice, to its end: it pays `invoice` (approved by bob in the run), then notes
 * it on the customer, then answers.
 */
async function paid(id: string, invoice: string): Promise<void> {
  cli.fake.script(
    { toolCalls: [{ id: `${id}-pay`, name: 'pay_invoice', args: { invoice, amount: 100 } }] },
    { toolCalls: [{ id: `${id}-note`, name: 'note_customer', args: { text: `pays ${invoice}` } }] },
    { content: 'Done.' },
  );
  await cli.client.runs.start({ goal: `Pay ${invoice}`, startedBy: 'alice' }, { workflowId: id });
  await eventually(
    () => cli.client.runs.progress(id).catch(() => undefined),
    (progress) => progress?.pendingApprovals.length === 1,
    { attempts: 600, intervalMs: 100 },
  );
  await cli.client.runs.approve(id, `${id}-pay`, { by: 'bob' });
  expect((await cli.client.runs.result(id)).status).toBe('completed');
}

/** The decisions `waveloop pending --json` lists for workflow `workflowId`. */
async function pendingFor(workflowId: string): Promise<PendingDecision[]> {
  const listed = await cmd(['pending', '--json']);
  expect(listed.code, listed.stderr).toBe(0);
  return (JSON.parse(listed.stdout) as PendingDecision[]).filter((d) => d.workflowId === workflowId);
}

describe('undo approvals', () => {
  it('the undo of a payment that waited for approval waits under undo:<run>: the asker is refused (four eyes), ops is refused, bob approves; the refund runs once and the ledger says undone by alice, approved by bob', async () => {
    const id = 'ua-approve';
    await paid(id, 'INV-1');
    expect(lines()).toEqual(['pay INV-1 100', 'note pays INV-1']);

    const undo = waveloopLive(['undo', id, '--by', 'alice'], cli.env, { cwd: project.dir });
    // The note (which did not wait in its run) is undone at once; the payment's undo waits.
    await eventually(undo.stderr, (said) => said.includes('Waiting for approval of the undo of pay_invoice'), {
      attempts: 600,
      intervalMs: 100,
    });
    expect(undo.stderr()).toContain(`waveloop approve undo:${id} ${id}-pay`);
    expect(undo.stderr()).toContain(`waveloop deny undo:${id} ${id}-pay --reason`);
    expect(lines()).toEqual(['pay INV-1 100', 'note pays INV-1', 'unnote pays INV-1']);

    const [waiting, ...more] = await pendingFor(`undo:${id}`);
    expect(more).toEqual([]);
    expect(waiting).toMatchObject({
      workflowId: `undo:${id}`,
      kind: 'approval',
      callId: `${id}-pay`,
      tool: 'pay_invoice',
      args: { invoice: 'INV-1', amount: 100 },
      approvers: { label: 'finance', names: ['alice', 'bob'] },
      fourEyes: true,
      startedBy: 'alice',
      command: `waveloop approve undo:${id} ${id}-pay`,
    });
    expect(waiting!.reason).toContain('Undo of pay_invoice');
    expect(waiting!.reason).toContain('a payment');
    // The worker's webhooks are told of the undo's wait, as of a run's call.
    const told = await eventually(
      () => receiver.received.map((r) => JSON.parse(r.raw) as WebhookBody),
      (bodies) => bodies.some((body) => body.workflowId === `undo:${id}`),
      { problem: "The undo's wait was not told to the worker's webhooks." },
    );
    expect(told.find((body) => body.workflowId === `undo:${id}`)).toMatchObject({
      event: 'waiting_for_approval',
      goal: `Undo of ${id}`,
      startedBy: 'alice',
      pending: { callId: `${id}-pay`, tool: 'pay_invoice' },
    });
    // The other test files' waiting runs on the shared server are listed too: past the newest 20.
    const list = await cmd(['list', '--status', 'waiting_for_approval', '--json', '--limit', '1000']);
    expect(list.code, list.stderr).toBe(0);
    expect((JSON.parse(list.stdout) as Array<{ workflowId: string }>).map((run) => run.workflowId)).toContain(
      `undo:${id}`,
    );
    const table = await cmd(['list', '--status', 'waiting_for_approval', '--limit', '1000']);
    expect(table.stdout.split('\n').find((line) => line.startsWith(`undo:${id} `))).toMatch(/ {2}undo {2}/);

    // alice asked for the undo: four eyes refuses her approval; carol is not of finance.
    const own = await cmd(['approve', `undo:${id}`, `${id}-pay`, '--by', 'alice']);
    expect(own.code).toBe(1);
    expect(own.stderr).toContain('alice asked for this undo and may not approve its undo of pay_invoice (four eyes)');
    const ops = await cmd(['approve', `undo:${id}`, `${id}-pay`, '--by', 'carol']);
    expect(ops.code).toBe(1);
    expect(ops.stderr).toContain('carol');
    expect(lines()).not.toContain('refund INV-1 100 asked by alice');
    expect(await pendingFor(`undo:${id}`)).toHaveLength(1);

    const approved = await cmd(['approve', `undo:${id}`, `${id}-pay`, '--by', 'bob']);
    expect(approved.code, approved.stderr).toBe(0);
    const done = await undo.done;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain(`Undid 2 calls of ${id} (undo:${id}, by alice).`);
    expect(done.stdout).toMatch(/pay_invoice .*refunded INV-1 +bob/);
    expect(lines().filter((line) => line.startsWith('refund'))).toEqual(['refund INV-1 100 asked by alice']);
    expect(await pendingFor(`undo:${id}`)).toEqual([]);

    const ledger = await cmd(['effects', id, '--json']);
    expect(ledger.code, ledger.stderr).toBe(0);
    const effects = (JSON.parse(ledger.stdout) as EffectLedger).effects;
    expect(effects.map((e) => [e.tool, e.undone?.by, e.undone?.approvedBy])).toEqual([
      ['pay_invoice', 'alice', ['bob']],
      ['note_customer', 'alice', undefined],
    ]);

    // The decision on the undo is in the audit trail, under the undo's id, and so is the undo.
    const audit = await cmd(['audit', '--run', `undo:${id}`, '--json']);
    expect(audit.code, audit.stderr).toBe(0);
    const records = JSON.parse(audit.stdout) as AuditRecord[];
    expect(records.filter((r) => r.kind === 'decision').map((r) => [r.person, r.details.decision])).toEqual([
      ['bob', 'approve'],
    ]);
    expect(records.find((r) => r.kind === 'undo')?.person).toBe('alice');

    const again = await cmd(['undo', id, '--by', 'carol']);
    expect(again.stdout).toContain(`Nothing left to undo in ${id}`);
  });

  it('a denied undo is listed as denied, with who and why, and nothing of the payment is undone; a later undo still finds it', async () => {
    const id = 'ua-deny';
    await paid(id, 'INV-2');
    const before = lines();

    const undo = cli.client.undo(id, { by: 'alice' });
    await eventually(
      () => pendingFor(`undo:${id}`),
      (waiting) => waiting.length === 1,
      { attempts: 300, intervalMs: 200 },
    );
    const denied = await cmd(['deny', `undo:${id}`, `${id}-pay`, '--by', 'bob', '--reason', 'refunded by hand']);
    expect(denied.code, denied.stderr).toBe(0);
    const report: UndoReport = await undo;
    expect(report.denied).toMatchObject([
      { callId: `${id}-pay`, tool: 'pay_invoice', denied: { by: 'bob', reason: 'refunded by hand' } },
    ]);
    expect(report.undone.map((e) => e.tool)).toEqual(['note_customer']);
    expect(lines().slice(before.length)).toEqual(['unnote pays INV-2']);

    const dry = await cmd(['undo', id, '--dry-run', '--json']);
    expect(dry.code, dry.stderr).toBe(0);
    expect((JSON.parse(dry.stdout) as UndoReport).undone.map((e) => e.callId)).toEqual([`${id}-pay`]);
    const ledger = JSON.parse((await cmd(['effects', id, '--json'])).stdout) as EffectLedger;
    expect(ledger.effects.find((e) => e.tool === 'pay_invoice')?.undone).toBeUndefined();
  });

  it('waveloop undo prints a denied undo and exits 1', async () => {
    const id = 'ua-deny-cli';
    await paid(id, 'INV-3');
    const undo = waveloopLive(['undo', id, '--by', 'alice'], cli.env, { cwd: project.dir });
    await eventually(undo.stderr, (said) => said.includes('Waiting for approval'), { attempts: 600, intervalMs: 100 });
    const denied = await cmd(['deny', `undo:${id}`, `${id}-pay`, '--by', 'bob', '--reason', 'not this one']);
    expect(denied.code, denied.stderr).toBe(0);
    const done = await undo.done;
    expect(done.code).toBe(1);
    expect(done.stdout).toContain(`Not undone, denied by bob: pay_invoice (${id}-pay, iteration 1): not this one`);
    expect(lines()).not.toContain('refund INV-3 100 asked by alice');
  });

  it("over HTTP: POST /api/runs/{id}/undo with wait: false answers 202 at once; GET /api/pending lists the undo's approval; the asker is refused (403), bob approves (200) and the refund runs", async () => {
    const id = 'ua-http';
    await paid(id, 'INV-4');
    const api = async (person: string, method: string, route: string, body?: unknown) => {
      const response = await fetch(`${server.url}${route}`, {
        method,
        headers: { authorization: `Bearer ${token(person)}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as any };
    };

    const started = await api('alice', 'POST', `/api/runs/${id}/undo`, { wait: false });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ undoId: `undo:${id}`, by: 'alice', running: true });
    expect((started.body as UndoReport).undone.map((e) => e.tool)).toEqual(['note_customer', 'pay_invoice']);

    const waiting = await eventually(
      async () =>
        ((await api('bob', 'GET', '/api/pending')).body as PendingDecision[]).filter(
          (d) => d.workflowId === `undo:${id}`,
        ),
      (decisions) => decisions.length === 1,
      { attempts: 300, intervalMs: 200 },
    );
    expect(waiting[0]).toMatchObject({ callId: `${id}-pay`, tool: 'pay_invoice', startedBy: 'alice', fourEyes: true });

    const route = `/api/runs/${encodeURIComponent(`undo:${id}`)}/approvals/${id}-pay`;
    expect((await api('alice', 'POST', route, { approve: true })).status).toBe(403);
    const approved = await api('bob', 'POST', route, { approve: true });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body).toMatchObject({ decided: 'approved' });
    const result = await cli.client.temporal.workflow.getHandle(`undo:${id}`).result();
    expect(result.undone.map((e: { tool: string; approvedBy?: string[] }) => [e.tool, e.approvedBy])).toEqual([
      ['note_customer', undefined],
      ['pay_invoice', ['bob']],
    ]);
    expect(lines()).toContain('refund INV-4 100 asked by alice');
  });

  it("onFailure: 'undo': a cancelled run's undo of its approved payment waits for approval too (asked by onFailure); the run ends once bob approves it", async () => {
    const id = 'ua-saga';
    cli.fake.script(
      { toolCalls: [{ id: `${id}-pay`, name: 'pay_invoice', args: { invoice: 'INV-5', amount: 100 } }] },
      { toolCalls: [{ id: `${id}-ask`, name: 'ask_question', args: { question: 'Anything else?' } }] },
    );
    await cli.client.runs.start({ goal: 'Pay INV-5', startedBy: 'alice', onFailure: 'undo' }, { workflowId: id });
    await eventually(
      () => cli.client.runs.progress(id).catch(() => undefined),
      (progress) => progress?.pendingApprovals.length === 1,
      { attempts: 600, intervalMs: 100 },
    );
    await cli.client.runs.approve(id, `${id}-pay`, { by: 'bob' });
    await eventually(
      () => cli.client.runs.progress(id).catch(() => undefined),
      (progress) => progress?.status === 'waiting_for_input',
      { attempts: 600, intervalMs: 100 },
    );
    await cli.client.runs.cancel(id);

    const [waiting] = await eventually(
      () => pendingFor(`undo:${id}`),
      (decisions) => decisions.length === 1,
      { attempts: 300, intervalMs: 200 },
    );
    expect(waiting).toMatchObject({ callId: `${id}-pay`, tool: 'pay_invoice', startedBy: 'onFailure' });
    expect(lines()).not.toContain('refund INV-5 100 asked by onFailure');

    const approved = await cmd(['approve', `undo:${id}`, `${id}-pay`, '--by', 'bob']);
    expect(approved.code, approved.stderr).toBe(0);
    expect((await cli.client.runs.result(id)).status).toBe('cancelled');
    expect(lines()).toContain('refund INV-5 100 asked by onFailure');
    const ledger = await cli.client.effects(id);
    expect(ledger.effects.map((e) => [e.tool, e.undone?.by, e.undone?.approvedBy])).toEqual([
      ['pay_invoice', 'onFailure', ['bob']],
    ]);
  });
});
