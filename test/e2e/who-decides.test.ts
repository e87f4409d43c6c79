import * as fs from 'node:fs';
import * as path from 'node:path';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PendingDecision } from '../../src/client/pending';
import type { AgentLoopResult } from '../../src/contract/agent-loop';
import { approveUpdate } from '../../src/contract/messages';
import { tokenSha256 } from '../../src/settings';
import { cliFixture, serveProcess, waveloop, workerProcess, type CliFixture, type LiveCommand } from '../support/cli';
import { waitForProgress } from '../support/harness';
import { testProject, type TestProject } from '../support/project';

/**
 * Who may decide, end to end: a `waveloop serve` process and a `waveloop worker` process over one
 * project config that declares the people (token digests only) and a payment rule that asks two
 * people of finance, neither of them the run's starter. Refusals (HTTP 403, CLI exit 1, a raw
 * client's rejected update) change nothing; two approvals let the tool run once, and the result
 * records both. Each run records who started it, and the tool reads it from its context.
 */

const TOKENS = {
  alice: 'alice-token-0001',
  bob: 'bob-token-00002',
  carol: 'carol-token-0003',
  dave: 'dave-token-00004',
};
const PEOPLE = [
  { name: 'alice', groups: ['finance'] },
  { name: 'bob', groups: ['finance'] },
  { name: 'carol', groups: ['ops'] },
  { name: 'dave', groups: ['finance'] },
].map((person) => ({ ...person, tokenSha256: tokenSha256(TOKENS[person.name as keyof typeof TOKENS]) }));

const CONFIG = (dir: string) => `import * as fs from 'node:fs';
import * as path from 'node:path';
import { defineAgent, defineConfig, defineTool } from 'waveloop';
import { z } from 'zod';

const log = (line: string) => fs.appendFileSync(path.join(${JSON.stringify(dir)}, 'payments.log'), line + '\\n');

export default defineConfig({
  people: ${JSON.stringify(PEOPLE)},
  tools: [
    defineTool({
      name: 'pay_invoice',
      description: 'Pays a supplier an invoice.',
      parameters: z.object({ supplier: z.string(), amount: z.number().positive() }),
      requiresApproval: ({ amount }) =>
        amount > 50_000 && { reason: 'over 50,000 USD', approvers: ['finance'], quorum: 2, fourEyes: true },
      preview: ({ supplier, amount }) => ({ text: 'Open invoice of ' + supplier, changes: [{ field: 'balance', before: amount, after: 0 }] }),
      execute: ({ supplier, amount }, context) => {
        log([supplier, amount, context.startedBy, (context.approvedBy ?? []).join('+')].join(' '));
        return 'paid';
      },
    }),
    defineTool({
      name: 'close_account',
      description: 'Closes a customer account.',
      parameters: z.object({ id: z.number() }),
      requiresApproval: true,
      preview: () => {
        throw new Error('the ledger is offline');
      },
      execute: () => 'closed',
    }),
  ],
  agents: [defineAgent({ name: 'payments', system: 'You pay invoices.', tools: ['pay_invoice', 'close_account'] })],
});
`;

let cli: CliFixture;
let project: TestProject;
let worker: LiveCommand | undefined;
let serve: LiveCommand | undefined;
let url = '';

const payments = () => {
  const file = path.join(project.dir, 'payments.log');
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n') : [];
};
const cmd = (args: string[]) => waveloop(args, cli.env, { cwd: project.dir });

/** A request to `waveloop serve` as `person`. */
async function api(person: keyof typeof TOKENS, method: string, route: string, body?: unknown) {
  const response = await fetch(`${url}${route}`, {
    method,
    headers: { authorization: `Bearer ${TOKENS[person]}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

const approveAs = (person: keyof typeof TOKENS, id: string, callId: string, args?: unknown) =>
  api(person, 'POST', `/api/runs/${id}/approvals/${callId}`, { approve: true, ...(args ? { args } : {}) });

async function pendingOf(id: string): Promise<PendingDecision> {
  const listed = await cmd(['pending', '--json']);
  expect(listed.code, listed.stderr).toBe(0);
  return (JSON.parse(listed.stdout) as PendingDecision[]).find((d) => d.workflowId === id)!;
}

beforeAll(async () => {
  cli = await cliFixture('who-decides', { worker: false });
  project = testProject();
  project.write('waveloop.config.ts', CONFIG(project.dir));
  worker = await workerProcess(cli.env, { cwd: project.dir });
  ({ serve, url } = await serveProcess(cli.env, { cwd: project.dir }));
});
afterAll(async () => {
  serve?.kill('SIGINT');
  worker?.kill('SIGTERM');
  await Promise.all([serve?.done, worker?.done]);
  project?.remove();
  await cli?.stop();
});

describe('who may decide', () => {
  it('finance, two people, four eyes: carol and the starter alice are refused (403), bob twice counts once, dave completes it; the tool runs once and the result records both', async () => {
    cli.fake.script(
      { toolCalls: [{ id: 'call_pay', name: 'pay_invoice', args: { supplier: 'Initrode', amount: 60_000 } }] },
      { content: 'Paid Initrode.' },
    );
    const started = await api('alice', 'POST', '/api/runs', {
      goal: 'Pay the Initrode invoice',
      agent: 'payments',
      workflowId: 'who-decides-http',
    });
    expect(started.status).toBe(201);
    const id = 'who-decides-http';
    await waitForProgress(cli.h.client, cli.client.runs.handle(id), (p) => p.status === 'waiting_for_approval');

    const waiting = await pendingOf(id);
    expect(waiting).toMatchObject({
      tool: 'pay_invoice',
      description: 'Pays a supplier an invoice.',
      reason: 'over 50,000 USD',
      approvers: { label: 'finance', names: ['alice', 'bob', 'dave'] },
      quorum: 2,
      approvals: [],
      fourEyes: true,
      startedBy: 'alice',
      agent: 'payments',
      preview: { text: 'Open invoice of Initrode', changes: [{ field: 'balance', before: 60_000, after: 0 }] },
    });

    const carol = await approveAs('carol', id, 'call_pay');
    expect(carol).toEqual({
      status: 403,
      body: {
        error: {
          code: 'forbidden',
          message: 'Refused: carol may not decide this call of pay_invoice: it needs finance.',
        },
      },
    });
    expect((await api('carol', 'POST', `/api/runs/${id}/approvals/call_pay`, { approve: false })).status).toBe(403);
    const alice = await approveAs('alice', id, 'call_pay');
    expect(alice.status).toBe(403);
    expect(alice.body.error.message).toBe(
      'Refused: alice started this run and may not approve its calls of pay_invoice (four eyes).',
    );
    // Each refusal changed nothing: the call waits with no approval, and nothing was paid.
    expect((await pendingOf(id)).approvals).toEqual([]);

    const bob = await approveAs('bob', id, 'call_pay');
    expect(bob.status).toBe(200);
    expect(bob.body).toMatchObject({ decided: 'waiting', quorum: 2, approvals: [{ by: 'bob' }] });
    const again = await approveAs('bob', id, 'call_pay');
    expect(again.status).toBe(409);
    expect(again.body.error.message).toMatch(/bob has already approved this call of pay_invoice \(1 of 2: bob\)/);
    expect((await pendingOf(id)).approvals!.map((vote) => vote.by)).toEqual(['bob']);
    const table = await cmd(['pending']);
    expect(table.stdout).toMatch(/needs finance · 1 of 2: bob · four eyes/);
    expect(payments()).toEqual([]);

    const dave = await approveAs('dave', id, 'call_pay');
    expect(dave.body).toMatchObject({ decided: 'approved', approvals: [{ by: 'bob' }, { by: 'dave' }] });
    const result: AgentLoopResult = await cli.client.runs.result(id);
    expect(result.answer).toBe('Paid Initrode.');
    const approval = result.waves[0]!.calls[0]!.approval!;
    expect(approval).toMatchObject({ decision: 'approved', by: 'dave', required: 'over 50,000 USD' });
    expect(approval.approvals!.map((vote) => vote.by)).toEqual(['bob', 'dave']);
    expect(approval.approvals!.every((vote) => !Number.isNaN(Date.parse(vote.at)))).toBe(true);
    // Once, as the starter, with both approvers in its context.
    expect(payments()).toEqual(['Initrode 60000 alice bob+dave']);
  });

  it('the CLI and a raw client are refused the same way; an edit restarts the quorum, and the tool runs with the edited arguments', async () => {
    const id = 'who-decides-cli';
    cli.fake.script(
      { toolCalls: [{ id: 'call_pay', name: 'pay_invoice', args: { supplier: 'Globex', amount: 70_000 } }] },
      { content: 'Paid Globex.' },
    );
    const started = await cmd(['run', '--detach', '--id', id, '--agent', 'payments', '--by', 'alice', 'Pay Globex']);
    expect(started.code, started.stderr).toBe(0);
    const handle = cli.client.runs.handle(id);
    await waitForProgress(cli.h.client, handle, (p) => p.status === 'waiting_for_approval');
    expect((await cli.client.runs.progress(id)).startedBy).toBe('alice');

    const carol = await cmd(['approve', id, 'call_pay', '--by', 'carol']);
    expect(carol.code).toBe(1);
    expect(carol.stderr).toContain('Refused: carol may not decide this call of pay_invoice: it needs finance.');
    const alice = await cmd(['approve', id, 'call_pay', '--by', 'alice']);
    expect(alice.code).toBe(1);
    expect(alice.stderr).toContain('alice started this run and may not approve its calls of pay_invoice');
    // A raw Temporal client sends the update itself: the run's validator refuses it all the same.
    const raw = cli.h.client.workflow.getHandle(id);
    const refused = await raw.executeUpdate(approveUpdate, { args: ['call_pay', { by: 'carol' }] }).catch((e) => e);
    expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
    expect(refused.cause).toMatchObject({ type: 'DecisionNotAllowed' });
    const anonymous = await raw.executeUpdate(approveUpdate, { args: ['call_pay'] }).catch((e) => e);
    expect(anonymous.cause?.message).toBe('This call of pay_invoice needs finance: say who decides (by).');
    expect((await pendingOf(id)).approvals).toEqual([]);

    const bob = await cmd(['approve', id, 'call_pay', '--by', 'bob']);
    expect(bob.code, bob.stderr).toBe(0);
    expect(bob.stdout).toContain('as bob: 1 of 2: bob; it waits for 1 more.');
    // Dave approves other arguments: the quorum starts again from his approval, for the edited call.
    const edited = await cmd([
      'approve',
      id,
      'call_pay',
      '--by',
      'dave',
      '--args',
      '{"supplier":"Globex","amount":65000}',
    ]);
    expect(edited.code, edited.stderr).toBe(0);
    expect(edited.stdout).toContain('1 of 2: dave');
    expect(await pendingOf(id)).toMatchObject({
      args: { supplier: 'Globex', amount: 65_000 },
      originalArgs: { supplier: 'Globex', amount: 70_000 },
      approvals: [{ by: 'dave' }],
    });
    expect(payments().filter((line) => line.startsWith('Globex'))).toEqual([]);

    // Bob approves again, now the edited arguments, through a raw client that names him.
    const outcome = await raw.executeUpdate(approveUpdate, { args: ['call_pay', { by: 'bob' }] });
    expect(outcome).toMatchObject({ decided: 'approved', approvals: [{ by: 'dave' }, { by: 'bob' }] });
    const result = await cli.client.runs.result(id);
    expect(result.waves[0]!.calls[0]!.approval).toMatchObject({
      originalArgs: { supplier: 'Globex', amount: 70_000 },
      approvals: [{ by: 'dave' }, { by: 'bob' }],
    });
    expect(payments().filter((line) => line.startsWith('Globex'))).toEqual(['Globex 65000 alice dave+bob']);
  });

  it('startedBy: the OS user by default from the CLI, unknown from a raw client; a preview that throws shows its error and the call waits', async () => {
    cli.fake.script({ content: 'Nothing to pay.' });
    const mine = await cmd(['run', '--id', 'who-decides-os-user', '--agent', 'payments', 'Anything to pay?']);
    expect(mine.code, mine.stderr).toBe(0);
    expect((await cli.client.runs.progress('who-decides-os-user')).startedBy).toBe(
      (await import('node:os')).userInfo().username,
    );

    const id = 'who-decides-raw';
    cli.fake.script(
      { toolCalls: [{ id: 'call_close', name: 'close_account', args: { id: 7 } }] },
      { content: 'Left account 7 open.' },
    );
    await cli.h.client.workflow.start('agentLoop', {
      taskQueue: cli.taskQueue,
      workflowId: id,
      args: [{ goal: 'Close account 7', agent: 'payments' }],
    });
    await waitForProgress(cli.h.client, cli.client.runs.handle(id), (p) => p.status === 'waiting_for_approval');
    expect(await pendingOf(id)).toMatchObject({
      startedBy: 'unknown',
      tool: 'close_account',
      preview: { error: 'the preview failed: the ledger is offline' },
    });
    // The list says who started each run: from its memo, unknown for a raw client's.
    // Past the other test files' runs on the shared server, started meanwhile.
    const listed = await cmd(['list', '--json', '--limit', '1000']);
    const by = Object.fromEntries(
      (JSON.parse(listed.stdout) as Array<{ workflowId: string; startedBy: string }>).map((r) => [
        r.workflowId,
        r.startedBy,
      ]),
    );
    expect(by).toMatchObject({ 'who-decides-http': 'alice', 'who-decides-cli': 'alice', [id]: 'unknown' });
    const shown = await cmd(['status', id]);
    expect(shown.stdout).toContain('Started by: unknown');
    expect(shown.stdout).toContain('no preview: the preview failed: the ledger is offline');
    // A denial says why, or it is refused and the call waits on.
    const blank = await api('carol', 'POST', `/api/runs/${id}/approvals/call_close`, { approve: false, reason: ' ' });
    expect(blank).toEqual({
      status: 400,
      body: { error: { code: 'bad_request', message: 'Say why the call is denied (a reason): the model reads it.' } },
    });
    const noReason = await cmd(['deny', id, 'call_close']);
    expect(noReason.code).toBe(2);
    expect(noReason.stderr).toContain("required option '--reason <text>' not specified");
    expect((await pendingOf(id)).callId).toBe('call_close');
    const denied = await api('carol', 'POST', `/api/runs/${id}/approvals/call_close`, {
      approve: false,
      reason: 'not today',
    });
    expect(denied.status).toBe(200);
    expect((await cli.client.runs.result(id)).answer).toBe('Left account 7 open.');
  });

  it('a deadline still decides a quorum: one approval of two, then the deadline approves, recorded by timeout with the approval it had', async () => {
    const id = 'who-decides-deadline';
    cli.fake.script(
      { toolCalls: [{ id: 'call_pay', name: 'pay_invoice', args: { supplier: 'Hooli', amount: 80_000 } }] },
      { content: 'Paid Hooli.' },
    );
    await cli.client.runs.start(
      {
        goal: 'Pay Hooli',
        agent: 'payments',
        startedBy: 'alice',
        approvalTimeoutSeconds: 2,
        onApprovalTimeout: 'approve',
      },
      { workflowId: id },
    );
    await waitForProgress(cli.h.client, cli.client.runs.handle(id), (p) => p.status === 'waiting_for_approval');
    expect((await approveAs('bob', id, 'call_pay')).body).toMatchObject({ decided: 'waiting' });
    const result = await cli.client.runs.result(id);
    expect(result.waves[0]!.calls[0]!.approval).toMatchObject({
      decision: 'approved',
      by: 'timeout',
      approvals: [{ by: 'bob' }],
    });
    expect(payments().filter((line) => line.startsWith('Hooli'))).toEqual(['Hooli 80000 alice bob']);
    // A late approval, after the deadline decided and the run ended: refused, and nothing runs again.
    const late = await cmd(['approve', id, 'call_pay', '--by', 'carol']);
    expect(late.code).toBe(1);
    expect(late.stderr).toContain(`Run ${id} has ended (completed); nothing to approve.`);
    expect(payments().filter((line) => line.startsWith('Hooli'))).toEqual(['Hooli 80000 alice bob']);
  });

  it('bad input is refused at start, naming the problem: a rule naming an unknown group, a person twice, a short token', async () => {
    const bad = testProject();
    try {
      bad.write(
        'waveloop.config.ts',
        `import { defineAgent, defineConfig } from 'waveloop';
export default defineConfig({
  people: ${JSON.stringify(PEOPLE)},
  agents: [defineAgent({ name: 'x', system: 'x', tools: [], requiresApproval: { ask_question: { approvers: ['payroll'] } } })],
});
`,
      );
      const worker = await waveloop(['worker'], cli.env, { cwd: bad.dir });
      expect(worker.code).not.toBe(0);
      expect(worker.stderr).toContain(
        'agent x, rule for ask_question: approvers name payroll, which is neither a group nor a person (groups: finance, ops)',
      );
      const twice = await waveloop(
        ['serve', '--listen', '127.0.0.1:0'],
        {
          ...cli.env,
          WAVELOOP_HTTP_TOKENS: `alice:${TOKENS.alice}x`,
        },
        { cwd: bad.dir },
      );
      expect(twice.code).toBe(2);
      expect(twice.stderr).toContain('alice is declared twice (WAVELOOP_HTTP_TOKENS and the config’s people).');
      const short = await waveloop(['serve', '--listen', '127.0.0.1:0'], {
        ...cli.env,
        WAVELOOP_HTTP_TOKENS: 'erin:short',
      });
      expect(short.code).toBe(2);
      expect(short.stderr).toContain('WAVELOOP_HTTP_TOKENS: entry 1 (erin): the token is shorter than 12 characters.');
    } finally {
      bad.remove();
    }
  });
});
