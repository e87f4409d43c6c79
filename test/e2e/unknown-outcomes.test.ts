import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PendingDecision } from '../../src/client/pending';
import type { AuditRecord } from '../../src/contract/audit/records';
import { startHttpServer, type HttpServer } from '../../src/http';
import { cliFixture, waveloop, waveloopLive, workerProcess, type CliFixture, type LiveCommand } from '../support/cli';
import { toolMessages } from '../support/fake-model';
import { waitForProgress } from '../support/harness';
import { peopleWith } from '../support/people';
import { testProject, type TestProject } from '../support/project';
import { eventually } from '../support/wait';
import { webhookReceiver } from '../support/webhook-receiver';

/**
 * Unknown outcomes, end to end (docs/effects.md#unknown-outcomes): a `waveloop worker` process is
 * SIGKILLed inside a tool call, after the tool committed its effect (a row in a SQLite database) and
 * before the activity completed. A `write` tool with `reconcile` finds the row, and the call completes
 * with it; one without waits for a person, who says it happened (or has it run again); a `read` tool
 * is simply retried.
 */

/**
 * Each tool writes its row (or its line), then, when the test left a `hang-<tool>` file, takes the
 * file away, says it committed (`committed-<tool>`) and never returns, so the test can kill its
 * worker there. Their attempts time out after 3 s, and their heartbeat timeout is no longer, so a
 * dead worker's attempt ends within 3 s, as timed out.
 */
const CONFIG = (dir: string) => `import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { defineConfig, defineTool } from 'waveloop';
import { z } from 'zod';

const dir = ${JSON.stringify(dir)};
const db = new Database(path.join(dir, 'effects.db'));
db.exec('CREATE TABLE IF NOT EXISTS effects (tool TEXT, invoice TEXT, amount INTEGER, key TEXT)');

/** The row, then, when the test asks, a hang after it (the test kills the worker there). */
async function act(tool: string, invoice: string, amount: number, key: string): Promise<string> {
  db.prepare('INSERT INTO effects VALUES (?, ?, ?, ?)').run(tool, invoice, amount, key);
  const hang = path.join(dir, 'hang-' + tool);
  if (fs.existsSync(hang)) {
    fs.rmSync(hang);
    fs.writeFileSync(path.join(dir, 'committed-' + tool), key);
    await new Promise(() => undefined);
  }
  return tool + ' ' + invoice + ' ' + amount;
}

const parameters = z.object({ invoice: z.string(), amount: z.number() });

export default defineConfig({
  tools: [
    defineTool({
      name: 'pay_invoice',
      description: 'Pays an invoice.',
      parameters,
      timeoutSeconds: 3,
      execute: ({ invoice, amount }, { idempotencyKey }) => act('pay_invoice', invoice, amount, idempotencyKey),
      reconcile: ({ invoice }, { idempotencyKey }) => {
        const row = db.prepare('SELECT amount FROM effects WHERE key = ?').get(idempotencyKey) as { amount: number } | undefined;
        return row ? 'found payment of ' + invoice + ': ' + row.amount : undefined;
      },
    }),
    defineTool({
      name: 'send_invoice',
      description: 'Sends an invoice by post.',
      parameters,
      timeoutSeconds: 3,
      execute: ({ invoice, amount }, { idempotencyKey }) => act('send_invoice', invoice, amount, idempotencyKey),
    }),
    defineTool({
      name: 'lookup_invoice',
      description: 'Reads an invoice.',
      parameters,
      effect: 'read',
      timeoutSeconds: 3,
      execute: ({ invoice, amount }, { idempotencyKey }) => act('lookup_invoice', invoice, amount, idempotencyKey),
    }),
  ],
});
`;

describe('unknown outcomes', () => {
  let cli: CliFixture;
  let project: TestProject;
  let worker: LiveCommand | undefined;
  let server: HttpServer;
  let receiver: Awaited<ReturnType<typeof webhookReceiver>>;
  /** The workers' environment: the fixture's, and a webhook receiver. */
  let env: Record<string, string>;
  const cmd = (args: string[]) => waveloop(args, cli.env, { cwd: project.dir });
  const rows = (invoice: string) => {
    const db = new Database(path.join(project.dir, 'effects.db'), { readonly: true });
    try {
      return db.prepare('SELECT tool, amount FROM effects WHERE invoice = ?').all(invoice);
    } finally {
      db.close();
    }
  };

  beforeAll(async () => {
    cli = await cliFixture('unknown-outcomes', { worker: false });
    project = testProject();
    project.write('waveloop.config.ts', CONFIG(project.dir));
    receiver = await webhookReceiver();
    env = { ...cli.env, WAVELOOP_WEBHOOKS: receiver.url('/hook') };
    worker = await workerProcess(env, { cwd: project.dir });
    const people = peopleWith([{ name: 'carol', token: 'carol-secret-token' }]);
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
   * Starts run `id` whose model calls `tool` on `invoice` for 4000 once, then answers; the tool's
   * first attempt hangs after its effect, and the worker is SIGKILLed there, and a new one started.
   */
  async function killedInside(id: string, tool: string, invoice: string): Promise<void> {
    cli.fake.route(
      (request) =>
        toolMessages(request).length === 0
          ? { toolCalls: [{ id: `call_${id}`, name: tool, args: { invoice, amount: 4000 } }] }
          : { content: `Done with ${invoice}: ${toolMessages(request)[0]}` },
      { atMost: 2 },
    );
    project.write(`hang-${tool}`, '');
    const committed = path.join(project.dir, `committed-${tool}`);
    fs.rmSync(committed, { force: true });
    const started = await cmd(['run', '--detach', '--id', id, '--by', 'alice', `Handle ${invoice}`]);
    expect(started.code, started.stderr).toBe(0);
    await eventually(
      () => fs.existsSync(committed),
      (there) => there,
      { problem: `${tool} never committed.` },
    );
    worker!.kill('SIGKILL');
    await worker!.done;
    worker = await workerProcess(env, { cwd: project.dir });
  }

  /** The decisions `waveloop pending --json` lists for run `id`. */
  async function pendingOf(id: string): Promise<PendingDecision[]> {
    const listed = await cmd(['pending', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    return (JSON.parse(listed.stdout) as PendingDecision[]).filter((d) => d.workflowId === id);
  }

  /**
   * The decisions `waveloop pending --json` lists for run `id`, once it lists some: a run whose
   * `status` query found its worker busy for 2 s is listed as unanswered, and asked again.
   */
  async function waitingIn(id: string): Promise<PendingDecision[]> {
    return eventually(
      () => pendingOf(id),
      (decisions) => decisions.length > 0,
      {
        attempts: 60,
        problem: `waveloop pending never listed ${id}.`,
      },
    );
  }

  it('a write tool with reconcile, its worker killed after the effect: reconcile finds it, the call completes with its result, and the database holds one row', async () => {
    const id = 'outcome-reconciled';
    await killedInside(id, 'pay_invoice', 'INV-1');
    const result = await cli.client.runs.result(id);
    const call = result.waves[0]!.calls[0]!;
    expect(call).toMatchObject({
      tool: 'pay_invoice',
      ok: true,
      result: 'found payment of INV-1: 4000',
      outcome: { path: 'reconciled', by: 'reconcile', why: 'its attempt timed out after 3 s' },
    });
    expect(result.answer).toBe('Done with INV-1: found payment of INV-1: 4000');
    expect(rows('INV-1')).toEqual([{ tool: 'pay_invoice', amount: 4000 }]);
    const shown = await cmd(['show', id]);
    expect(shown.stdout).toContain(
      'wave 1 · pay_invoice(invoice=INV-1, amount=4000) → found payment of INV-1: 4000 (may have run: reconciled)',
    );
  });

  it('a write tool without reconcile waits as an unknown outcome in pending; "it happened" completes the call with the given result', async () => {
    const id = 'outcome-confirmed';
    await killedInside(id, 'send_invoice', 'INV-2');
    await waitForProgress(cli.h.client, cli.client.runs.handle(id), (p) => (p.pendingOutcomes ?? []).length > 0);
    const [decision, ...more] = await waitingIn(id);
    expect(more).toEqual([]);
    expect(decision).toMatchObject({
      kind: 'outcome',
      callId: `call_${id}`,
      tool: 'send_invoice',
      args: { invoice: 'INV-2', amount: 4000 },
      choices: ['happened', 'again', 'give_up'],
      why: 'its attempt timed out after 3 s',
      command: `waveloop outcome ${id} call_${id} --happened [--result "…"] | --again | --give-up`,
    });
    const status = await cmd(['status', id]);
    expect(status.stdout).toContain('Status:     waiting_for_approval');
    expect(status.stdout).toContain(
      `Outcome:    wave 1 · send_invoice(invoice=INV-2, amount=4000) (call call_${id}) may or may not have run (its attempt timed out after 3 s)`,
    );

    // A webhook tells the wait: not an approval, an unknown outcome.
    const [notice] = await eventually(
      () => receiver.received.map((r) => JSON.parse(r.raw)).filter((body) => body.workflowId === id),
      (bodies) => bodies.length > 0,
      { problem: 'No webhook told the wait.' },
    );
    expect(notice).toMatchObject({
      event: 'waiting_for_approval',
      pending: {
        callId: `call_${id}`,
        tool: 'send_invoice',
        unknownOutcome: true,
        reason:
          'send_invoice(invoice=INV-2, amount=4000) may or may not have run (its attempt timed out after 3 s): it happened, run it again, or give up',
      },
    });

    const both = await cmd(['outcome', id, `call_${id}`, '--happened', '--again']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('Say one of --happened (with --result, maybe), --again or --give-up.');

    const settled = await cmd(['outcome', id, `call_${id}`, '--happened', '--result', 'posted INV-2', '--by', 'bob']);
    expect(settled.code, settled.stderr).toBe(0);
    expect(settled.stdout).toContain('Settled send_invoice (call call_outcome-confirmed) as bob: it happened');
    const result = await cli.client.runs.result(id);
    expect(result.waves[0]!.calls[0]).toMatchObject({
      ok: true,
      result: 'posted INV-2',
      outcome: { path: 'confirmed', by: 'bob' },
    });
    expect(result.answer).toBe('Done with INV-2: posted INV-2');
    expect(rows('INV-2')).toEqual([{ tool: 'send_invoice', amount: 4000 }]);
    expect(await pendingOf(id)).toEqual([]);
  });

  it('"run it again": the call runs once more, and the database holds both rows', async () => {
    const id = 'outcome-again';
    await killedInside(id, 'send_invoice', 'INV-3');
    await waitForProgress(cli.h.client, cli.client.runs.handle(id), (p) => (p.pendingOutcomes ?? []).length > 0);
    // A follower is told what waits, and the command that settles it.
    const following = waveloopLive(['follow', id], cli.env, { cwd: project.dir });
    await eventually(following.stdout, (out) => out.includes('Unknown outcome: wave 1 · send_invoice('), {
      problem: 'waveloop follow never said the call waits.',
    });
    expect(following.stdout()).toContain(`decide with: waveloop outcome ${id} call_${id} --happened`);
    const settled = await cmd(['outcome', id, `call_${id}`, '--again', '--by', 'bob']);
    expect(settled.code, settled.stderr).toBe(0);
    const result = await cli.client.runs.result(id);
    expect(result.waves[0]!.calls[0]).toMatchObject({
      ok: true,
      result: 'send_invoice INV-3 4000',
      outcome: { path: 'rerun', by: 'bob' },
    });
    expect((await following.done).code).toBe(0);
    expect(rows('INV-3')).toEqual([
      { tool: 'send_invoice', amount: 4000 },
      { tool: 'send_invoice', amount: 4000 },
    ]);
  });

  it('over the HTTP API and in the inbox: the card offers the three choices; "give up" fails the call, and the audit trail has the decision', async () => {
    const id = 'outcome-given-up';
    await killedInside(id, 'send_invoice', 'INV-5');
    await waitForProgress(cli.h.client, cli.client.runs.handle(id), (p) => (p.pendingOutcomes ?? []).length > 0);
    const call = `call_${id}`;
    const request = (path: string, init: RequestInit = {}) =>
      fetch(`${server.url}${path}`, {
        ...init,
        headers: { authorization: 'Bearer carol-secret-token', 'content-type': 'application/json' },
      });
    const pending = await eventually(
      async () => (await (await request('/api/pending')).json()) as PendingDecision[],
      (decisions) => decisions.some((d) => d.workflowId === id),
      { attempts: 60, problem: `/api/pending never listed ${id}.` },
    );
    expect(pending.find((d) => d.workflowId === id)).toMatchObject({ kind: 'outcome', callId: call });
    const inbox = await (await request('/')).text();
    expect(inbox).toContain('Did <code>send_invoice</code> run?');
    expect(inbox).toContain(`hx-post="/runs/${id}/outcomes/${call}"`);
    for (const choice of ['happened', 'again', 'give_up']) expect(inbox).toContain(`value="${choice}"`);

    const wrong = await request(`/api/runs/${id}/outcomes/${call}`, {
      method: 'POST',
      body: JSON.stringify({ choice: 'again', result: 'posted' }),
    });
    expect(wrong.status).toBe(400);
    const gaveUp = await request(`/api/runs/${id}/outcomes/${call}`, {
      method: 'POST',
      body: JSON.stringify({ choice: 'give_up' }),
    });
    expect(gaveUp.status, await gaveUp.clone().text()).toBe(200);
    expect(await gaveUp.json()).toEqual({ callId: call, tool: 'send_invoice', choice: 'give_up' });
    const again = await request(`/api/runs/${id}/outcomes/${call}`, {
      method: 'POST',
      body: JSON.stringify({ choice: 'happened' }),
    });
    // Refused: 409 while the run goes on, 404 once it has ended (it may have, by now).
    expect([404, 409]).toContain(again.status);

    const result = await cli.client.runs.result(id);
    expect(result.waves[0]!.calls[0]).toMatchObject({
      ok: false,
      error:
        'send_invoice(invoice=INV-5, amount=4000) may or may not have run (its attempt timed out after 3 s); carol gave up on it, and it was not run again.',
      outcome: { path: 'given_up', by: 'carol' },
    });
    expect(rows('INV-5')).toHaveLength(1);
    const audited = await cmd(['audit', '--json', '--run', id]);
    expect(audited.code, audited.stderr).toBe(0);
    const decisions = (JSON.parse(audited.stdout) as AuditRecord[]).filter((r) => r.kind === 'decision');
    expect(decisions).toMatchObject([
      {
        person: 'carol',
        tool: 'send_invoice',
        callId: call,
        details: { decision: 'give_up', outcome: 'unknown', args: { invoice: 'INV-5', amount: 4000 } },
      },
    ]);
  });

  it('a read tool killed the same way is simply retried', async () => {
    const id = 'outcome-read';
    await killedInside(id, 'lookup_invoice', 'INV-4');
    const result = await cli.client.runs.result(id);
    const call = result.waves[0]!.calls[0]!;
    expect(call).toMatchObject({ ok: true, result: 'lookup_invoice INV-4 4000' });
    expect(call.outcome).toBeUndefined();
    expect(rows('INV-4')).toHaveLength(2);
  });
});
