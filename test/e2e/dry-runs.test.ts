import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListedRun } from '../../src/client/run-list';
import type { AgentLoopResult } from '../../src/contract/agent-loop';
import type { EvalReport } from '../../src/contract/eval/eval';
import { cliFixture, waveloop, type CliFixture } from '../support/cli';
import { toolMessages, type ChatRequest, type ScriptedReply } from '../support/fake-model';

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

  it('waveloop run --dry-run of the Bob scenario: the reads run, update_user is held back without waiting for approval, the database is unchanged, and list marks the run', async () => {
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
