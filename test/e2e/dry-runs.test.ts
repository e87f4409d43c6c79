import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ListedRun } from '../../src/client/run-list';
import type { AgentLoopResult } from '../../src/contract/agent-loop';
import type { EvalReport } from '../../src/contract/eval/eval';
import { startHttpServer } from '../../src/http';
import { defineTool } from '../../src/tools/define';
import { cliFixture, waveloop, type CliFixture } from '../support/cli';
import { toolMessages, type ChatRequest, type ScriptedReply } from '../support/fake-model';
import { peopleWith } from '../support/people';

/**
 * Dry runs, end to end (docs/effects.md#dry-runs): the demo's Bob scenario with `--dry-run` reads
 * for real, holds `update_user` back (it would have waited for approval), changes nothing in the
 * demo database and completes; `waveloop list` marks it; `waveloop eval --dry-run` runs every case so.
 */
describe('dry runs', () => {
  let cli: CliFixture;
  const cmd = (args: string[]) => waveloop(args, cli.env);
  const company = (name: string) => {
    const db = new Database(path.join(cli.dataDir, 'demo.db'), { readonly: true });
    try {
      return (db.prepare('SELECT company FROM users WHERE name = ?').get(name) as { company: string }).company;
    } finally {
      db.close();
    }
  };

  /** The Bob scenario, by the request: find Bob, read him, move him to EPAM, answer with what the last call said. */
  const bob = (request: ChatRequest): ScriptedReply => {
    const results = toolMessages(request);
    if (results.length === 0) return { toolCalls: [{ name: 'search_users', args: { name: 'Bob' } }] };
    const id = (JSON.parse(results[0]!) as Array<{ id: number }>)[0]!.id;
    if (results.length === 1) return { toolCalls: [{ name: 'get_user', args: { id } }] };
    if (results.length === 2) return { toolCalls: [{ name: 'update_user', args: { id, company: 'EPAM' } }] };
    return { content: `Done: ${results[2]}` };
  };

  beforeAll(async () => {
    cli = await cliFixture('dry-runs');
  });
  afterAll(() => cli?.stop());

  it('waveloop run --dry-run of the Bob scenario: the reads run, update_user is held back without waiting for approval, the database is unchanged, and list and the inbox mark the run', async () => {
    const before = company('Bob Martin');
    expect(before).not.toBe('EPAM');
    cli.fake.route(bob, { atMost: 4 });
    const ran = await cmd([
      'run',
      '--agent',
      'back-office',
      '--dry-run',
      '--id',
      'dry-bob',
      '--json',
      'Find Bob and update his company to EPAM',
    ]);
    expect(ran.code, ran.stderr).toBe(0);
    const result = JSON.parse(ran.stdout) as AgentLoopResult;
    expect(result.status).toBe('completed');
    expect(result.dryRun).toBe(true);
    expect(result.heldBack).toEqual([
      { iteration: 3, callId: expect.any(String), tool: 'update_user', args: { id: 2, company: 'EPAM' } },
    ]);
    // The reads ran for real; the write did not, and the model read that it did not.
    expect(result.waves.map((wave) => wave.calls.map((call) => [call.tool, call.heldBack ?? false]))).toEqual([
      [['search_users', false]],
      [['get_user', false]],
      [['update_user', true]],
    ]);
    expect(result.waves[1]!.calls[0]!.result).toContain('"name":"Bob Martin"');
    expect(result.answer).toBe(
      'Done: dry run: update_user was not called; it would have been called with {"id":2,"company":"EPAM"}.',
    );
    expect(result.waves[2]!.calls[0]!.approval).toBeUndefined();
    expect(company('Bob Martin')).toBe(before);

    const listed = await cmd(['list', '--limit', '1000', '--json']);
    expect((JSON.parse(listed.stdout) as ListedRun[]).find((run) => run.workflowId === 'dry-bob')).toMatchObject({
      dryRun: true,
    });
    const table = await cmd(['list', '--limit', '1000']);
    expect(table.stdout).toMatch(/^dry-bob\s+completed\s+.*DRY RUN · agent run/m);

    // The inbox marks it in its run list and on its page.
    const people = peopleWith([{ name: 'carol', token: 'carol-secret-token' }]);
    const server = await startHttpServer({ client: cli.client, people, host: '127.0.0.1', port: 0, log: () => {} });
    try {
      const page = async (path: string) =>
        (await fetch(`${server.url}${path}`, { headers: { authorization: 'Bearer carol-secret-token' } })).text();
      const row = (await page('/runs')).split('<tr>').find((tr) => tr.includes('/runs/dry-bob'));
      expect(row).toContain('<span class="badge dry-run">dry run</span>');
      const runPage = await page('/runs/dry-bob');
      expect(runPage).toContain('<span class="badge dry-run">dry run</span>');
      expect(runPage).toContain('held back: a dry run, it did not run');
    } finally {
      await server.close();
    }
  });

  it("a tool's dryRun answers for its held-back call; a read tool that would wait for approval is held back too; other reads run", async () => {
    const ran: string[] = [];
    const sendEmail = defineTool({
      name: 'send_email',
      description: 'Sends an email.',
      parameters: z.object({ to: z.string() }),
      execute: ({ to }) => (ran.push(`send_email ${to}`), `sent to ${to}`),
      dryRun: ({ to }, { idempotencyKey }) => `would send to ${to} (${idempotencyKey.split('/')[1]})`,
    });
    const readSalary = defineTool({
      name: 'read_salary',
      description: "Reads a person's salary.",
      parameters: z.object({ name: z.string() }),
      effect: 'read',
      requiresApproval: true,
      execute: ({ name }) => (ran.push(`read_salary ${name}`), `${name}: 90,000`),
    });
    const lookup = defineTool({
      name: 'lookup_person',
      description: 'Looks a person up.',
      parameters: z.object({ name: z.string() }),
      effect: 'read',
      execute: ({ name }) => (ran.push(`lookup_person ${name}`), `${name} works in sales`),
    });
    cli.fake.script(
      {
        toolCalls: [
          { id: 'call_mail', name: 'send_email', args: { to: 'bob@example.com' } },
          { id: 'call_salary', name: 'read_salary', args: { name: 'Bob' } },
          { id: 'call_lookup', name: 'lookup_person', args: { name: 'Bob' } },
        ],
      },
      { content: 'Done.' },
    );
    const { result } = await cli.h.run(
      { goal: 'Write to Bob about his salary', dryRun: true },
      { extraTools: [sendEmail, readSalary, lookup] },
    );
    expect(result!.status).toBe('completed');
    expect(ran).toEqual(['lookup_person Bob']);
    expect(toolMessages(cli.fake.requests.at(-1)!)).toEqual([
      'would send to bob@example.com (call_mail)',
      'dry run: read_salary was not called; it would have been called with {"name":"Bob"}.',
      'Bob works in sales',
    ]);
    expect(result!.heldBack!.map((call) => call.tool)).toEqual(['send_email', 'read_salary']);
  });

  it('waveloop eval --dry-run: every case runs dry, holds update_user back and changes nothing', async () => {
    const before = company('Bob Martin');
    cli.fake.route(bob, { atMost: 8 });
    const dataset = path.join(cli.dataDir, 'bob.jsonl');
    const goal = { goal: 'Find Bob and update his company to EPAM', agent: 'back-office' };
    fs.writeFileSync(
      dataset,
      `${JSON.stringify(goal)}\n${JSON.stringify({ ...goal, goal: `${goal.goal}, please` })}\n`,
    );
    const ran = await cmd(['eval', dataset, '--name', 'dry-bob', '--dry-run', '--json']);
    expect(ran.code, ran.stderr).toBe(0);
    const report = JSON.parse(ran.stdout) as EvalReport;
    expect(report.dryRun).toBe(true);
    expect(report.cases).toHaveLength(2);
    for (const c of report.cases) {
      expect(c.status).toBe('completed');
      expect(c.heldBack?.map((call) => call.tool)).toEqual(['update_user']);
    }
    expect(company('Bob Martin')).toBe(before);
    const listed = await cmd(['list', '--eval', 'dry-bob', '--json']);
    const runs = JSON.parse(listed.stdout) as ListedRun[];
    expect(runs.map((run) => run.dryRun)).toEqual([true, true]);
  });
});
