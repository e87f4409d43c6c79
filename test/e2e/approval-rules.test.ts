import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PendingDecision } from '../../src/client/pending';
import type { AgentLoopResult } from '../../src/contract/agent-loop';
import { cliFixture, waveloop, workerProcess, type CliFixture, type LiveCommand } from '../support/cli';
import { toolMessages, type ChatRequest } from '../support/fake-model';
import { waitForProgress } from '../support/harness';
import { recordHistory } from '../support/history';
import { testProject, type TestProject } from '../support/project';

/**
 * Approval rules that follow the business: a payment over 1,000 USD waits for a person, a smaller
 * one runs at once; a person approves with corrected arguments, denies with a reason, or lets a
 * deadline decide; every decision says who made it. The worker is a `waveloop worker` process over
 * a project config, so it can be killed while a call waits.
 */

const CONFIG = (dir: string) => `import * as fs from 'node:fs';
import * as path from 'node:path';
import { defineAgent, defineConfig, defineTool } from 'waveloop';
import { z } from 'zod';

const log = (line: string) => fs.appendFileSync(path.join(${JSON.stringify(dir)}, 'payments.log'), line + '\\n');

export default defineConfig({
  tools: [
    defineTool({
      name: 'pay',
      description: 'Pays a supplier.',
      parameters: z.object({ supplier: z.string(), amount: z.number().positive() }),
      requiresApproval: ({ amount }) => amount > 1000 && \`a payment of \${amount} USD is over 1,000 USD\`,
      execute: ({ supplier, amount }) => {
        log(\`\${supplier} \${amount}\`);
        return \`paid \${amount} USD to \${supplier}\`;
      },
    }),
    defineTool({
      name: 'delete_record',
      description: 'Deletes a ledger record.',
      parameters: z.object({ id: z.number() }),
      requiresApproval: () => {
        throw new Error('the ledger is unreachable');
      },
      execute: ({ id }) => {
        log(\`deleted \${id}\`);
        return 'deleted';
      },
    }),
  ],
  agents: [
    defineAgent({ name: 'clerk', system: 'You pay invoices.', tools: ['pay'], requiresApproval: { pay: false } }),
  ],
});
`;

let cli: CliFixture;
let project: TestProject;
let worker: LiveCommand | undefined;
const payments = () => {
  const file = path.join(project.dir, 'payments.log');
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n') : [];
};

async function startWorker(): Promise<void> {
  worker = await workerProcess(cli.env, { cwd: project.dir });
}

beforeAll(async () => {
  cli = await cliFixture('approval-rules', { worker: false });
  project = testProject();
  project.write('waveloop.config.ts', CONFIG(project.dir));
  await startWorker();
});
afterAll(async () => {
  worker?.kill('SIGTERM');
  await worker?.done;
  project?.remove();
  await cli?.stop();
});

const cmd = (args: string[]) => waveloop(args, cli.env, { cwd: project.dir });

describe('approval rules', () => {
  it('in one wave the small payment runs at once while the large one waits with its reason; a worker killed meanwhile loses nothing; approved with edited arguments, the tool runs once with them', async () => {
    const id = 'approval-rules-edited';
    let seen: string[] = [];
    cli.fake.script(
      {
        toolCalls: [
          { id: 'call_small', name: 'pay', args: { supplier: 'Acme', amount: 250 } },
          { id: 'call_large', name: 'pay', args: { supplier: 'Initrode', amount: 9000 } },
        ],
      },
      (request: ChatRequest) => {
        seen = toolMessages(request);
        return { content: 'Paid Acme 250 USD and Initrode 900 USD.' };
      },
    );
    const started = await cmd(['run', '--detach', '--id', id, 'Pay the open invoices']);
    expect(started.code, started.stderr).toBe(0);
    const handle = cli.client.runs.handle(id);
    // Once the small call has settled (the run may wait before it has: the two are checked apart).
    const waiting = await waitForProgress(
      cli.h.client,
      handle,
      (p) => p.status === 'waiting_for_approval' && p.settling?.calls.length === 1,
    );
    // The small call ran while the large one waits.
    expect(payments()).toEqual(['Acme 250']);
    expect(waiting.settling?.calls.map((c) => [c.id, c.ok])).toEqual([['call_small', true]]);

    const listed = await cmd(['pending', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const pending = (JSON.parse(listed.stdout) as PendingDecision[]).filter((d) => d.workflowId === id);
    expect(pending).toEqual([
      expect.objectContaining({
        kind: 'approval',
        callId: 'call_large',
        tool: 'pay',
        args: { supplier: 'Initrode', amount: 9000 },
        reason: 'a payment of 9000 USD is over 1,000 USD',
        command: `waveloop approve ${id} call_large`,
      }),
    ]);

    // The worker dies while the call waits; another takes the run over.
    worker!.kill('SIGKILL');
    await worker!.done;
    await startWorker();

    // Bad decisions are refused at once and the call keeps waiting.
    const notJson = await cmd(['approve', id, 'call_large', '--args', '{amount: 900']);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toMatch(/--args.*must be JSON/);
    const nobody = await cmd(['approve', id, 'call_large', '--by', ' ']);
    expect(nobody.code).toBe(2);
    expect(nobody.stderr).toMatch(/--by.*must be a name/);
    const wrongType = await cmd(['approve', id, 'call_large', '--args', '{"supplier":"Initrode","amount":"900"}']);
    expect(wrongType.code).toBe(1);
    expect(wrongType.stderr).toMatch(
      /Refused: Invalid arguments for pay: amount: .*expected number.*The call still waits for a decision\./,
    );
    expect((await cli.client.runs.progress(id)).pendingApprovals.map((a) => a.callId)).toEqual(['call_large']);

    const approved = await cmd([
      'approve',
      id,
      'call_large',
      '--args',
      '{"supplier":"Initrode","amount":900}',
      '--by',
      'alice',
    ]);
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toBe('Approved pay (call call_large) with the edited arguments, as alice.\n');

    const result = (await cli.client.runs.result(id)) as AgentLoopResult;
    expect(result.status).toBe('completed');
    expect(payments()).toEqual(['Acme 250', 'Initrode 900']);
    const [small, large] = result.waves[0].calls;
    expect(small).not.toHaveProperty('approval');
    expect(large).toMatchObject({
      args: { supplier: 'Initrode', amount: 900 },
      ok: true,
      approval: {
        decision: 'approved',
        by: 'alice',
        required: 'a payment of 9000 USD is over 1,000 USD',
        originalArgs: { supplier: 'Initrode', amount: 9000 },
      },
    });
    expect(Date.parse(large.approval!.at)).not.toBeNaN();
    // The model reads that the arguments changed, and to what.
    expect(seen[1]).toMatch(/changed arguments: \{"supplier":"Initrode","amount":900\} instead of .*9000/);

    // The rule was asked inside the call's one activity: a call that needs no approval costs nothing more.
    const history = await handle.fetchHistory();
    const scheduled = (history.events ?? [])
      .map((e) => e.activityTaskScheduledEventAttributes)
      .filter((a) => a?.activityType?.name === 'runTool');
    expect(scheduled).toHaveLength(3);
    await recordHistory('approval-edited', handle);
  });

  it("a deadline decides by itself, on a durable timer: the call is denied by 'timeout'; a rule that throws makes its call wait, with the error as the reason", async () => {
    cli.fake.script(
      {
        toolCalls: [
          { id: 'call_pay', name: 'pay', args: { supplier: 'Globex', amount: 5000 } },
          { id: 'call_delete', name: 'delete_record', args: { id: 7 } },
        ],
      },
      { content: 'Nothing was approved in time.' },
    );
    const { workflowId } = await cli.client.runs.start({ goal: 'Pay Globex and clean up', approvalTimeoutSeconds: 1 });
    const result = (await cli.client.runs.result(workflowId)) as AgentLoopResult;
    expect(result.status).toBe('completed');
    const [pay, remove] = result.waves[0].calls;
    expect(pay).toMatchObject({
      ok: false,
      error: expect.stringMatching(/denied.*nobody decided within 1 seconds/),
      approval: { decision: 'denied', by: 'timeout', required: 'a payment of 5000 USD is over 1,000 USD' },
    });
    expect(remove).toMatchObject({
      ok: false,
      approval: {
        decision: 'denied',
        by: 'timeout',
        required: 'the approval rule of delete_record failed: the ledger is unreachable',
      },
    });
    expect(payments().filter((line) => line.includes('Globex') || line.startsWith('deleted'))).toEqual([]);
    // Two durable timers fired: the deadlines, in the run's history.
    const events = (await cli.client.runs.handle(workflowId).fetchHistory()).events ?? [];
    expect(events.filter((e) => e.timerFiredEventAttributes).length).toBe(2);
  });

  it("a deny with a reason reaches the model and records who denied; an agent can turn a tool's rule off", async () => {
    let seen: string[] = [];
    cli.fake.script(
      { toolCalls: [{ id: 'call_1', name: 'pay', args: { supplier: 'Umbrella', amount: 2000 } }] },
      (request: ChatRequest) => {
        seen = toolMessages(request);
        return { content: 'The payment was refused.' };
      },
    );
    const { workflowId } = await cli.client.runs.start({ goal: 'Pay Umbrella' });
    await waitForProgress(cli.h.client, cli.client.runs.handle(workflowId), (p) => p.status === 'waiting_for_approval');
    await cli.client.runs.deny(workflowId, 'call_1', { reason: 'Umbrella is under audit', by: 'bob' });
    const denied = (await cli.client.runs.result(workflowId)) as AgentLoopResult;
    expect(seen).toEqual([expect.stringMatching(/denied.*Umbrella is under audit/)]);
    expect(denied.waves[0].calls[0].approval).toMatchObject({
      decision: 'denied',
      by: 'bob',
      reason: 'Umbrella is under audit',
    });

    // The clerk agent's own rule for pay (false) replaces the tool's: a large payment runs at once.
    cli.fake.script(
      { toolCalls: [{ id: 'call_2', name: 'pay', args: { supplier: 'Hooli', amount: 4000 } }] },
      { content: 'Paid Hooli.' },
    );
    const clerk = await cli.client.runs.start({ goal: 'Pay Hooli', agent: 'clerk' });
    const paid = (await cli.client.runs.result(clerk.workflowId)) as AgentLoopResult;
    expect(paid.waves[0].calls[0]).toMatchObject({ ok: true, result: 'paid 4000 USD to Hooli' });
    expect(payments()).toContain('Hooli 4000');
  });
});
