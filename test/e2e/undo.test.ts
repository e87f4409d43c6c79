import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UndoReport } from '../../src/client/undo';
import type { AuditRecord } from '../../src/contract/audit/records';
import { startHttpServer, type HttpServer } from '../../src/http';
import { cliFixture, waveloop, waveloopLive, workerProcess, type CliFixture, type LiveCommand } from '../support/cli';
import { peopleWith } from '../support/people';
import { testProject, type TestProject } from '../support/project';
import { eventually } from '../support/wait';

/**
 * Undo, end to end (docs/effects.md#undo): runs on a `waveloop worker` process pay invoices, update
 * a customer and send letters (rows of a SQLite log), and `waveloop undo` reverses them, later calls
 * first, through its own workflow; once across a worker SIGKILLed in the middle of an undo.
 */

/**
 * Every call and every undo writes a line to the `log` table. An undo whose invoice (or customer)
 * has a `hang-undo-<what>` file takes it away after its line, says so (`undoing-<what>`) and never
 * returns, so the test can kill its worker there. The undos store their line under their
 * idempotency key, so the attempt after the kill adds none. `send_letter` has no undo; `ship_order`'s
 * undo always fails (each attempt writes a line).
 */
const CONFIG = (dir: string) => `import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { defineConfig, defineTool } from 'waveloop';
import { z } from 'zod';

const dir = ${JSON.stringify(dir)};
const db = new Database(path.join(dir, 'undo.db'));
db.exec('CREATE TABLE IF NOT EXISTS log (seq INTEGER PRIMARY KEY, line TEXT, key TEXT UNIQUE)');

function log(line: string, key: string | null): void {
  db.prepare('INSERT OR IGNORE INTO log (line, key) VALUES (?, ?)').run(line, key);
}

async function undone(what: string, line: string, key: string): Promise<string> {
  log(line, key);
  const hang = path.join(dir, 'hang-undo-' + what);
  if (fs.existsSync(hang)) {
    fs.rmSync(hang);
    fs.writeFileSync(path.join(dir, 'undoing-' + what), key);
    await new Promise(() => undefined);
  }
  return line;
}

export default defineConfig({
  tools: [
    defineTool({
      name: 'pay_invoice',
      description: 'Pays an invoice.',
      parameters: z.object({ invoice: z.string(), amount: z.number() }),
      timeoutSeconds: 3,
      execute: ({ invoice, amount }, { idempotencyKey }) => { log('pay ' + invoice + ' ' + amount, idempotencyKey); return 'paid ' + invoice; },
      undo: ({ invoice, amount }, result, { idempotencyKey }) => undone(invoice, 'refund ' + invoice + ' ' + amount + ' (' + result + ')', idempotencyKey),
    }),
    defineTool({
      name: 'update_customer',
      description: "Changes a customer's plan.",
      parameters: z.object({ customer: z.number(), plan: z.string() }),
      timeoutSeconds: 3,
      execute: ({ customer, plan }, { idempotencyKey }) => { log('plan ' + customer + ' ' + plan, idempotencyKey); return 'was silver'; },
      undo: ({ customer }, result, { idempotencyKey }) => undone('customer-' + customer, 'plan ' + customer + ' back: ' + result, idempotencyKey),
    }),
    defineTool({
      name: 'ship_order',
      description: 'Ships an order.',
      parameters: z.object({ order: z.string() }),
      retry: { maximumAttempts: 2, initialIntervalSeconds: 0.1 },
      execute: ({ order }, { idempotencyKey }) => { log('ship ' + order, idempotencyKey); return 'shipped'; },
      undo: ({ order }) => { log('recall ' + order + ' tried', null); throw new Error(order + ' has left the warehouse'); },
    }),
    defineTool({
      name: 'send_letter',
      description: 'Posts a letter about an invoice.',
      parameters: z.object({ invoice: z.string() }),
      execute: ({ invoice }, { idempotencyKey }) => { log('letter ' + invoice, idempotencyKey); return 'posted'; },
    }),
  ],
});
`;

type Call = { name: string; args: Record<string, unknown> };

describe('undo', () => {
  let cli: CliFixture;
  let project: TestProject;
  let worker: LiveCommand | undefined;
  let server: HttpServer;
  const cmd = (args: string[]) => waveloop(args, cli.env, { cwd: project.dir });
  const log = (): string[] => {
    const db = new Database(path.join(project.dir, 'undo.db'), { readonly: true });
    try {
      return (db.prepare('SELECT line FROM log ORDER BY seq').all() as Array<{ line: string }>).map((r) => r.line);
    } finally {
      db.close();
    }
  };
  const logSince = (before: string[]) => log().slice(before.length);
  // The workers' heartbeatSeconds, which an undo's calls take as their heartbeat timeout.
  const workerEnv = () => ({ ...cli.env, WAVELOOP_HEARTBEAT_SECONDS: '2' });

  beforeAll(async () => {
    cli = await cliFixture('undo', { worker: false });
    project = testProject();
    project.write('waveloop.config.ts', CONFIG(project.dir));
    worker = await workerProcess(workerEnv(), { cwd: project.dir });
    const people = peopleWith([{ name: 'carol', token: 'carol-secret-token' }]);
    server = await startHttpServer({ client: cli.client, people, host: '127.0.0.1', port: 0, log: () => {} });
  });
  afterAll(async () => {
    await server?.close();
    worker?.kill('SIGTERM');
    await worker?.done;
    project?.remove();
    await cli?.stop();
  });

  /** Run `id` to its end: each wave of `waves` is one model reply's calls (ids `<id>-<n>`), then an answer. */
  async function ran(id: string, waves: Call[][]): Promise<void> {
    let n = 0;
    cli.fake.script(...waves.map((calls) => ({ toolCalls: calls.map((call) => ({ id: `${id}-${++n}`, ...call })) })), {
      content: 'Done.',
    });
    const run = await cmd(['run', '--id', id, '--by', 'alice', `Handle ${id}`]);
    expect(run.code, run.stderr).toBe(0);
    await cli.client.runs.result(id);
  }

  const pay = (invoice: string, amount = 100): Call => ({ name: 'pay_invoice', args: { invoice, amount } });
  const plan = (customer: number): Call => ({ name: 'update_customer', args: { customer, plan: 'gold' } });

  it('a run that paid two invoices and updated a customer is undone in reverse order, each undo once across a worker SIGKILL; a second undo finds nothing left', async () => {
    const id = 'undo-all';
    await ran(id, [[pay('INV-1'), pay('INV-2')], [plan(7)]]);

    const before = log();
    const dry = await cmd(['undo', id, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`Dry run: would undo 3 calls of ${id}; nothing was undone.`);
    expect(dry.stdout.indexOf('update_customer')).toBeLessThan(dry.stdout.indexOf('"INV-2"'));
    expect(dry.stdout.indexOf('"INV-2"')).toBeLessThan(dry.stdout.indexOf('"INV-1"'));
    expect(logSince(before)).toEqual([]);

    project.write('hang-undo-INV-2', '');
    const undo = waveloopLive(['undo', id, '--by', 'carol'], cli.env, { cwd: project.dir });
    await eventually(
      () => fs.existsSync(path.join(project.dir, 'undoing-INV-2')),
      (there) => there,
      { problem: 'The undo of INV-2 never started.' },
    );
    worker!.kill('SIGKILL');
    await worker!.done;
    worker = await workerProcess(workerEnv(), { cwd: project.dir });
    const undone = await undo.done;
    expect(undone.code, undone.stderr).toBe(0);
    expect(logSince(before)).toEqual([
      'plan 7 back: was silver',
      'refund INV-2 100 (paid INV-2)',
      'refund INV-1 100 (paid INV-1)',
    ]);
    expect(undone.stdout).toContain(`Undid 3 calls of ${id} (undo:${id}, by carol).`);
    const undoHistory = await cli.h.client.workflow.getHandle(`undo:${id}`).fetchHistory();
    const undoCalls = undoHistory.events!.flatMap((e) => e.activityTaskScheduledEventAttributes ?? []);
    expect(
      undoCalls
        .filter((a) => a.activityType?.name === 'undoCall')
        .map((a) => Number(a.heartbeatTimeout?.seconds ?? 0) * 1000 + (a.heartbeatTimeout?.nanos ?? 0) / 1e6),
    ).toEqual([2000, 2000, 2000]);
    expect(undone.stdout).toMatch(
      /2\s+undo-all-3\s+update_customer\s+\{"customer":7,"plan":"gold"\}\s+plan 7 back: was silver/,
    );

    const effects = await cmd(['effects', id, '--json']);
    const ledger = JSON.parse(effects.stdout) as {
      effects: Array<{ callId: string; undone?: { by: string; undoId: string } }>;
    };
    expect(ledger.effects.map((e) => [e.callId, e.undone?.by, e.undone?.undoId])).toEqual([
      [`${id}-1`, 'carol', `undo:${id}`],
      [`${id}-2`, 'carol', `undo:${id}`],
      [`${id}-3`, 'carol', `undo:${id}`],
    ]);
    expect((await cmd(['effects', id])).stdout).toContain('paid INV-1 (undone by carol)');

    const again = await cmd(['undo', id]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout.trim()).toBe(`Nothing left to undo in ${id}: 3 calls undone already, by carol.`);
    expect(logSince(before)).toHaveLength(3);

    const audit = await cmd(['audit', '--run', `undo:${id}`, '--json']);
    expect(audit.code, audit.stderr).toBe(0);
    const [record] = JSON.parse(audit.stdout) as AuditRecord[];
    expect(record).toMatchObject({ kind: 'undo', person: 'carol', details: { run: id, cannotUndo: [], failed: [] } });
    expect((record!.details.undone as Array<{ tool: string }>).map((c) => c.tool)).toEqual([
      'update_customer',
      'pay_invoice',
      'pay_invoice',
    ]);
  });

  it('--to-iteration N undoes only the calls of iterations after N; a later undo takes the rest and nothing twice', async () => {
    const id = 'undo-to';
    await ran(id, [[pay('INV-3')], [pay('INV-4')], [plan(8)]]);
    const before = log();
    const undone = await cmd(['undo', id, '--to-iteration', '1']);
    expect(undone.code, undone.stderr).toBe(0);
    expect(undone.stdout).toContain(`Undid 2 calls of ${id} after iteration 1`);
    expect(logSince(before)).toEqual(['plan 8 back: was silver', 'refund INV-4 100 (paid INV-4)']);

    const rest = await cmd(['undo', id]);
    expect(rest.code, rest.stderr).toBe(0);
    expect(rest.stdout).toContain(`Undid 1 call of ${id}`);
    expect(logSince(before)).toEqual([
      'plan 8 back: was silver',
      'refund INV-4 100 (paid INV-4)',
      'refund INV-3 100 (paid INV-3)',
    ]);
  });

  it('a call whose tool has no undo stops the undo, saying so; --skip-irreversible goes past it', async () => {
    const id = 'undo-stop';
    await ran(id, [[pay('INV-5')], [{ name: 'send_letter', args: { invoice: 'INV-5' } }], [pay('INV-6')]]);
    const before = log();
    const stopped = await cmd(['undo', id]);
    expect(stopped.code).toBe(1);
    expect(stopped.stdout).toContain(`Undid 1 call of ${id}`);
    expect(stopped.stdout).toContain(
      `Stopped at send_letter (${id}-2, iteration 2): send_letter has no undo, so this call cannot be undone. 1 call before it were not undone; --skip-irreversible goes past it.`,
    );
    expect(logSince(before)).toEqual(['refund INV-6 100 (paid INV-6)']);

    const skipped = await cmd(['undo', id, '--skip-irreversible']);
    expect(skipped.code, skipped.stderr).toBe(0);
    expect(skipped.stdout).toContain(`Undid 1 call of ${id}`);
    expect(skipped.stdout).toContain(`Cannot be undone (no undo), passed by: send_letter (${id}-2, iteration 2).`);
    expect(logSince(before)).toEqual(['refund INV-6 100 (paid INV-6)', 'refund INV-5 100 (paid INV-5)']);
  });

  /** `POST /api/runs/{id}/undo` with `body`, as carol: the status and the body. */
  async function undoOverHttp(
    id: string,
    body: unknown,
  ): Promise<{ status: number; body: UndoReport & { error?: { code: string; message: string } } }> {
    const response = await fetch(`${server.url}/api/runs/${id}/undo`, {
      method: 'POST',
      headers: { authorization: 'Bearer carol-secret-token', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as never };
  }

  it('an undo that fails is retried, then listed as failed, and the other calls are still undone', async () => {
    const id = 'undo-fails';
    await ran(id, [[pay('INV-13')], [{ name: 'ship_order', args: { order: 'ORD-1' } }]]);
    const before = log();
    const undone = await cmd(['undo', id, '--by', 'carol']);
    expect(undone.code).toBe(1);
    expect(undone.stdout).toContain(`Undid 1 call of ${id}`);
    expect(undone.stdout).toContain(`Failed to undo ship_order (${id}-2, iteration 2): ORD-1 has left the warehouse`);
    expect(logSince(before)).toEqual(['recall ORD-1 tried', 'recall ORD-1 tried', 'refund INV-13 100 (paid INV-13)']);
    const ledger = await cli.client.effects(id);
    expect(ledger.effects.map((e) => [e.tool, e.undone?.by])).toEqual([
      ['pay_invoice', 'carol'],
      ['ship_order', undefined],
    ]);
  });

  it("POST /api/runs/{id}/undo: a dry run changes nothing, the undo is made by the token's person, a second finds nothing left; a bad body is 400", async () => {
    const id = 'undo-http';
    await ran(id, [[pay('INV-9'), pay('INV-10')]]);
    const before = log();
    const dry = await undoOverHttp(id, { dryRun: true });
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({ dryRun: true, by: 'carol', failed: [], cannotUndo: [] });
    expect(dry.body.undone.map((call) => call.args)).toEqual([
      { invoice: 'INV-10', amount: 100 },
      { invoice: 'INV-9', amount: 100 },
    ]);
    expect(dry.body.undoId).toBeUndefined();
    expect(logSince(before)).toEqual([]);

    const undone = await undoOverHttp(id, {});
    expect(undone.status).toBe(200);
    expect(undone.body).toMatchObject({ dryRun: false, by: 'carol', undoId: `undo:${id}` });
    expect(undone.body.undone.map((call) => call.undoResult)).toEqual([
      'refund INV-10 100 (paid INV-10)',
      'refund INV-9 100 (paid INV-9)',
    ]);
    const again = await undoOverHttp(id, {});
    expect(again.status).toBe(200);
    expect(again.body.undone).toEqual([]);
    expect(again.body.alreadyUndone.map((call) => call.callId)).toEqual([`${id}-2`, `${id}-1`]);
    expect(logSince(before)).toHaveLength(2);

    const bad = await undoOverHttp(id, { toIteration: -1 });
    expect(bad.status).toBe(400);
  });

  it('a run still running is refused (exit 1, HTTP 409), and nothing is undone', async () => {
    const id = 'undo-running';
    cli.fake.script(
      { toolCalls: [{ id: `${id}-1`, ...pay('INV-7') }] },
      { toolCalls: [{ id: `${id}-2`, name: 'ask_question', args: { question: 'Pay INV-8 too?' } }] },
    );
    const started = await cmd(['run', '--detach', '--id', id, `Handle ${id}`]);
    expect(started.code, started.stderr).toBe(0);
    await eventually(
      () => log(),
      (lines) => lines.includes('pay INV-7 100'),
      { problem: 'INV-7 was never paid.' },
    );
    // Still running, at its question: the model has answered both its calls before the run is
    // cancelled (a call still in flight then would take the next test's first reply).
    await eventually(
      async () => (await cli.client.runs.status(id)).progress?.status,
      (status) => status === 'waiting_for_input',
      { problem: 'The run never asked its question.' },
    );
    const before = log();
    const refused = await cmd(['undo', id]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `${id} is still running: cancel it (waveloop cancel ${id}) or let it end, then undo it.`,
    );
    const conflict = await undoOverHttp(id, {});
    expect(conflict.status).toBe(409);
    expect(conflict.body.error?.message).toBe(
      `${id} is still running: cancel it (waveloop cancel ${id}) or let it end, then undo it.`,
    );
    expect(logSince(before)).toEqual([]);
    await cli.client.runs.cancel(id);
  });

  it("onFailure: 'undo': a run cancelled after two writes undoes both, later first, in a child its history shows; nothing is left to undo", async () => {
    const id = 'undo-saga';
    cli.fake.script(
      { toolCalls: [{ id: `${id}-1`, ...pay('INV-12') }] },
      { toolCalls: [{ id: `${id}-2`, ...plan(9) }] },
      { toolCalls: [{ id: `${id}-3`, name: 'ask_question', args: { question: 'Anything else?' } }] },
    );
    const started = await cmd(['run', '--detach', '--on-failure', 'undo', '--id', id, `Handle ${id}`]);
    expect(started.code, started.stderr).toBe(0);
    await eventually(
      async () => (await cli.client.runs.status(id)).progress?.status,
      (status) => status === 'waiting_for_input',
      { problem: 'The run never asked its question.' },
    );
    const before = log();
    const cancelled = await cmd(['cancel', id]);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    const result = await cli.client.runs.result(id);
    expect(result.status).toBe('cancelled');
    expect(logSince(before)).toEqual(['plan 9 back: was silver', 'refund INV-12 100 (paid INV-12)']);

    const history = await cli.h.client.workflow.getHandle(id).fetchHistory();
    const children = (history.events ?? []).flatMap((event) => {
      const child = event.startChildWorkflowExecutionInitiatedEventAttributes;
      return child ? [[child.workflowType?.name, child.workflowId]] : [];
    });
    expect(children).toContainEqual(['undoRun', `undo:${id}`]);
    const ledger = await cli.client.effects(id);
    expect(ledger.effects.map((e) => [e.tool, e.undone?.by])).toEqual([
      ['pay_invoice', 'onFailure'],
      ['update_customer', 'onFailure'],
    ]);
    const again = await cmd(['undo', id]);
    expect(again.stdout.trim()).toBe(`Nothing left to undo in ${id}: 2 calls undone already, by onFailure.`);
  });
});
