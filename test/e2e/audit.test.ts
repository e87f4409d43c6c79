import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../src/contract/audit/records';
import { cliFixture, waveloop, workerProcess, type CliFixture, type LiveCommand } from '../support/cli';
import { toolMessages } from '../support/fake-model';
import { waitForProgress } from '../support/harness';
import { postgresBinaries, startPostgres, type TestPostgres } from '../support/postgres';
import { testProject, type TestProject } from '../support/project';
import { eventually } from '../support/wait';
import { signatureHolds, webhookReceiver } from '../support/webhook-receiver';

/**
 * The audit trail, end to end, in each store: `waveloop worker` processes write a run's records
 * (its start, the decision, the approved call, its end) once each, a worker SIGKILLed after the
 * decision included; `waveloop audit` lists them in order while workers run; a record edited or
 * deleted in the store makes `waveloop audit verify` exit 1 naming where the chain breaks. The
 * embedded SQLite store always; PostgreSQL when the machine has it (docs/audit.md).
 */

const CONFIG = (dir: string) => `import * as fs from 'node:fs';
import * as path from 'node:path';
import { defineConfig, defineTool } from 'waveloop';
import { z } from 'zod';

export default defineConfig({
  tools: [
    defineTool({
      name: 'refund',
      description: 'Refunds an order.',
      parameters: z.object({ order: z.string(), amount: z.number() }),
      requiresApproval: { reason: 'money leaves the company' },
      execute: ({ order, amount }) => {
        fs.appendFileSync(path.join(${JSON.stringify(dir)}, 'refunds.log'), order + ' ' + amount + '\\n');
        return 'refunded ' + amount;
      },
      // A worker killed inside a refund: the log says whether it was paid.
      reconcile: ({ order, amount }) => {
        const log = path.join(${JSON.stringify(dir)}, 'refunds.log');
        const paid = fs.existsSync(log) && fs.readFileSync(log, 'utf8').split('\\n').includes(order + ' ' + amount);
        return paid ? 'refunded ' + amount : undefined;
      },
    }),
    defineTool({
      name: 'add_note',
      description: 'Adds a note to an order.',
      parameters: z.object({ order: z.string(), note: z.string() }),
      execute: ({ order }) => 'noted on ' + order,
    }),
    defineTool({
      name: 'read_order',
      description: 'Reads an order.',
      effect: 'read',
      parameters: z.object({ order: z.string() }),
      execute: ({ order }) => order + ': 120 EUR',
    }),
  ],
});
`;

const STORES: Array<'SQLite' | 'PostgreSQL'> = postgresBinaries() ? ['SQLite', 'PostgreSQL'] : ['SQLite'];

describe.each(STORES)('audit trail in %s', (store) => {
  let pg: TestPostgres | undefined;
  let cli: CliFixture;
  let project: TestProject;
  let env: Record<string, string>;
  let worker: LiveCommand | undefined;
  let siem: Awaited<ReturnType<typeof webhookReceiver>>;
  const cmd = (args: string[]) => waveloop(args, env, { cwd: project.dir });
  const audit = async (args: string[]) => {
    const listed = await cmd(['audit', '--json', ...args]);
    expect(listed.code, listed.stderr).toBe(0);
    return JSON.parse(listed.stdout) as AuditRecord[];
  };

  beforeAll(async () => {
    if (store === 'PostgreSQL') pg = await startPostgres();
    cli = await cliFixture(`audit-${pg ? 'pg' : 'sqlite'}`, { worker: false });
    siem = await webhookReceiver();
    env = {
      ...cli.env,
      ...(pg ? { WAVELOOP_AUDIT_URL: pg.url } : {}),
      WAVELOOP_AUDIT_WEBHOOKS: siem.url('/siem'),
      WAVELOOP_WEBHOOK_SECRET: 'siem-secret',
    };
    project = testProject();
    project.write('waveloop.config.ts', CONFIG(project.dir));
    worker = await workerProcess(env, { cwd: project.dir });
  });
  afterAll(async () => {
    worker?.kill('SIGTERM');
    await worker?.done;
    project?.remove();
    await siem?.close();
    await cli?.stop();
    pg?.stop();
  });

  it('a run with a decision, an approved call and an end: its records in order, with who, when and what, each once across a worker killed after the decision', async () => {
    const id = `audit-run-${pg ? 'pg' : 'sqlite'}`;
    // By the request, not in order: the worker killed after the decision may have asked the model
    // for the next turn already, and the worker that takes over asks again.
    cli.fake.route(
      (request) =>
        toolMessages(request).length === 0
          ? { toolCalls: [{ id: 'call_refund', name: 'refund', args: { order: 'A-17', amount: 120 } }] }
          : { content: 'Refunded A-17.' },
      { atMost: 3 },
    );
    const started = await cmd(['run', '--detach', '--id', id, '--by', 'alice', 'Refund order A-17']);
    expect(started.code, started.stderr).toBe(0);
    await waitForProgress(cli.h.client, cli.client.runs.handle(id), (p) => p.status === 'waiting_for_approval');
    // While the worker runs, the trail already has the start.
    expect((await audit(['--run', id])).map((r) => r.kind)).toEqual(['run_started']);

    const approved = await cmd(['approve', id, 'call_refund', '--by', 'bob']);
    expect(approved.code, approved.stderr).toBe(0);
    // The worker dies right after the decision; another takes the run over and finishes it.
    worker!.kill('SIGKILL');
    await worker!.done;
    worker = await workerProcess(env, { cwd: project.dir });
    expect(await cli.client.runs.result(id)).toMatchObject({ answer: 'Refunded A-17.' });

    const records = await audit(['--run', id]);
    expect(records.map((r) => [r.kind, r.person])).toEqual([
      ['run_started', 'alice'],
      ['decision', 'bob'],
      ['tool_call', 'alice'],
      ['run_ended', 'alice'],
    ]);
    const [start, decision, call, end] = records;
    expect(start!.details).toMatchObject({ goal: 'Refund order A-17', agent: 'default' });
    expect(decision).toMatchObject({
      tool: 'refund',
      callId: 'call_refund',
      details: { decision: 'approve', args: { order: 'A-17', amount: 120 }, ruleReason: 'money leaves the company' },
    });
    expect(call!.details).toMatchObject({ ok: true, result: 'refunded 120', approvedBy: ['bob'] });
    expect(end!.details).toMatchObject({ status: 'completed' });
    // In chain order, each once, each with its time.
    const seqs = records.map((r) => r.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(records.map((r) => r.id)).size).toBe(4);
    expect(records.every((r) => !Number.isNaN(Date.parse(r.at)))).toBe(true);
    // The refund ran (twice only if the kill fell inside it: the audit trail still has one tool_call).
    const refunds = fs.readFileSync(path.join(project.dir, 'refunds.log'), 'utf8').trim().split('\n');
    expect(new Set(refunds)).toEqual(new Set(['A-17 120']));

    // A signed copy of each record went to the SIEM, as the store holds it.
    const copies = await eventually(
      () => siem.received.filter((r) => (JSON.parse(r.raw) as { workflowId: string }).workflowId === id),
      (got) => got.length >= 4,
    );
    for (const copy of copies) {
      expect(copy.path).toBe('/siem');
      expect(signatureHolds(copy.headers['x-waveloop-signature'] as string, copy.raw, 'siem-secret')).toBe(true);
      const body = JSON.parse(copy.raw) as { event: string; record: AuditRecord };
      expect(body.event).toBe('audit');
      expect(copy.headers['x-waveloop-delivery']).toBe(`audit:${body.record.id}`);
      expect(records).toContainEqual(body.record);
    }
    expect(new Set(copies.map((c) => (JSON.parse(c.raw) as { record: AuditRecord }).record.id)).size).toBe(4);

    // By person, and as CSV.
    expect((await audit(['--person', 'bob'])).map((r) => r.kind)).toEqual(['decision']);
    const csv = await cmd(['audit', '--csv', '--run', id]);
    expect(csv.stdout.split('\n')[0]).toBe('seq,at,kind,person,workflowId,tool,callId,details,hash');
    expect(csv.stdout.trim().split('\n')).toHaveLength(5);
  });

  it('a call that changes something is recorded without an approval; a read is not', async () => {
    const id = `audit-writes-${pg ? 'pg' : 'sqlite'}`;
    cli.fake.script(
      {
        toolCalls: [
          { id: 'call_read', name: 'read_order', args: { order: 'C-3' } },
          { id: 'call_note', name: 'add_note', args: { order: 'C-3', note: 'called the customer' } },
        ],
      },
      { content: 'Noted.' },
    );
    expect((await cmd(['run', '--detach', '--id', id, '--by', 'carol', 'Note on C-3'])).code).toBe(0);
    expect(await cli.client.runs.result(id)).toMatchObject({ answer: 'Noted.' });
    const records = await audit(['--run', id]);
    expect(records.map((r) => [r.kind, r.tool ?? null])).toEqual([
      ['run_started', null],
      ['tool_call', 'add_note'],
      ['run_ended', null],
    ]);
    expect(records[1]!.details).toEqual({
      args: { order: 'C-3', note: 'called the customer' },
      ok: true,
      result: 'noted on C-3',
      effect: 'write',
    });
  });

  it('a store that refuses records: the run says it waits for it, in its status and details, and ends once the store takes them, none lost, none twice', async () => {
    const id = `audit-full-${pg ? 'pg' : 'sqlite'}`;
    cli.fake.route(
      (request) =>
        toolMessages(request).length === 0
          ? { toolCalls: [{ id: 'call_refund', name: 'refund', args: { order: 'B-2', amount: 40 } }] }
          : { content: 'Refunded B-2.' },
      { atMost: 3 },
    );
    const started = await cmd(['run', '--detach', '--id', id, '--by', 'alice', 'Refund order B-2']);
    expect(started.code, started.stderr).toBe(0);
    const handle = cli.client.runs.handle(id);
    await waitForProgress(cli.h.client, handle, (p) => p.status === 'waiting_for_approval');
    // The store fills up: every write is refused from now on.
    await refuseWrites(true);
    expect((await cmd(['approve', id, 'call_refund', '--by', 'bob'])).code).toBe(0);

    // The run goes on to its answer, and waits for its records before it ends, saying why.
    const waiting = await waitForProgress(cli.h.client, handle, (p) => p.status === 'completed' && !!p.auditWaiting);
    expect(waiting.auditWaiting!.record).toMatch(new RegExp(`^${id}/decision/call_refund/1@`));
    expect(waiting.auditWaiting!.error).toContain('the audit disk is full');
    const status = await cmd(['status', id]);
    expect(status.stdout).toMatch(
      /Audit:\s+waiting for the audit store since .*: record .* is not written yet \(.*the audit disk is full/,
    );
    const metadata = await cli.h.client.workflow
      .getHandle(id)
      .query<{ currentDetails?: string }>('__temporal_workflow_metadata');
    expect(metadata.currentDetails).toContain('**Waiting for the audit store**');
    expect((await cli.h.client.workflow.getHandle(id).describe()).status.name).toBe('RUNNING');
    expect((await audit(['--run', id])).map((r) => r.kind)).toEqual(['run_started']);

    // The store takes records again: every record is written, once, and the run ends.
    await refuseWrites(false);
    expect(await cli.client.runs.result(id)).toMatchObject({ answer: 'Refunded B-2.' });
    const records = await audit(['--run', id]);
    expect(records.map((r) => [r.kind, r.person])).toEqual([
      ['run_started', 'alice'],
      ['decision', 'bob'],
      ['tool_call', 'alice'],
      ['run_ended', 'alice'],
    ]);
    expect((await handle.query<{ auditWaiting?: unknown }>('status')).auditWaiting).toBeUndefined();
    expect((await cmd(['audit', 'verify'])).code).toBe(0);
  });

  it('audit verify: the chain holds; an edited record, then a deleted one, breaks it where it was changed', async () => {
    const holds = await cmd(['audit', 'verify']);
    expect(holds.code, holds.stderr).toBe(0);
    expect(holds.stdout).toMatch(/^The audit trail holds: \d+ records chained/);
    const records = await audit([]);
    const target = records.find((r) => r.kind === 'decision')!;

    await tamper(`UPDATE $T SET details = '{"decision":"deny"}' WHERE seq = ${target.seq}`);
    const edited = await cmd(['audit', 'verify']);
    expect(edited.code).toBe(1);
    expect(edited.stderr).toContain(
      `The audit trail is broken at record ${target.seq} (${target.id}): record ${target.seq} was changed: its content does not match its hash.`,
    );

    await tamper(`DELETE FROM $T WHERE seq = ${target.seq}`);
    const deleted = await cmd(['audit', 'verify']);
    expect(deleted.code).toBe(1);
    expect(deleted.stderr).toContain(
      `record ${target.seq + 1} follows record ${target.seq - 1}: record ${target.seq} is missing.`,
    );
  });

  /** Makes the store refuse every new record, as a full disk would, or take them again. */
  async function refuseWrites(refuse: boolean): Promise<void> {
    if (!pg)
      return tamper(
        refuse
          ? "CREATE TRIGGER refuse BEFORE INSERT ON $T BEGIN SELECT RAISE(ABORT, 'the audit disk is full (test)'); END;"
          : 'DROP TRIGGER refuse;',
      );
    return tamper(
      refuse
        ? "CREATE FUNCTION refuse() RETURNS trigger AS 'BEGIN RAISE EXCEPTION ''the audit disk is full (test)''; END' LANGUAGE plpgsql; CREATE TRIGGER refuse BEFORE INSERT ON $T FOR EACH ROW EXECUTE FUNCTION refuse();"
        : 'DROP TRIGGER refuse ON $T; DROP FUNCTION refuse();',
    );
  }

  /** Changes the store behind the workers' backs, as someone with access to it could. */
  async function tamper(sql: string): Promise<void> {
    if (!pg) {
      const db = new Database(path.join(cli.dataDir, 'audit.db'));
      db.exec(sql.replaceAll('$T', 'audit_records'));
      db.close();
      return;
    }
    const { Client } = await import('pg');
    const client = new Client({ connectionString: pg.url });
    await client.connect();
    await client.query(sql.replaceAll('$T', 'waveloop_audit_records'));
    await client.end();
  }
});

it('an audit database that cannot be reached stops the worker at start, named without its password', async () => {
  const refused = await waveloop(['worker'], {
    PATH: process.env.PATH,
    OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
    WAVELOOP_AUDIT_URL: 'postgres://auditor:s3cret-pw@127.0.0.1:9/audit',
  });
  expect(refused.code).not.toBe(0);
  expect(refused.stderr).toContain(
    'The audit store of WAVELOOP_AUDIT_URL (postgres://auditor:***@127.0.0.1:9/audit) cannot be reached',
  );
  expect(refused.stderr).not.toContain('s3cret-pw');
});

if (!postgresBinaries()) it.skip('audit trail in PostgreSQL: this machine has no PostgreSQL (initdb)', () => {});
