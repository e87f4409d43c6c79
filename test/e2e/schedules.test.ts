import * as os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliFixture, waveloop, type CliFixture } from '../support/cli';
import { eventually } from '../support/wait';

/**
 * Recurring automations: `waveloop schedule …` on the tests' Temporal server. A run a schedule
 * starts is an ordinary run, served here by the fixture's worker with the fake model.
 */
describe('waveloop schedule', () => {
  let cli: CliFixture;
  let env: Record<string, string>;
  const name = () => `report-${Math.random().toString(36).slice(2, 8)}`;

  beforeAll(async () => {
    cli = await cliFixture('schedule');
    env = cli.env;
  });
  afterAll(() => cli?.stop());

  const scheduleNames = async () =>
    (JSON.parse((await waveloop(['schedule', 'list', '--json'], env)).stdout) as Array<{ name: string }>).map(
      (s) => s.name,
    );

  it('a bad cron expression, an unknown agent, an empty goal or no timing is refused; no schedule is made', async () => {
    const id = name();
    const cron = await waveloop(['schedule', 'create', id, 'Send the report', '--cron', '61 9 * * *'], env);
    expect(cron.code).toBe(2);
    expect(cron.stderr.trim()).toBe(`Schedule "${id}" refused: Minute is not in range [0-59]`);

    const agent = await waveloop(
      ['schedule', 'create', id, 'Send the report', '--every', '1h', '--agent', 'ghost'],
      env,
    );
    expect(agent.code).toBe(2);
    expect(agent.stderr.trim()).toBe('Unknown agent "ghost". This project\'s agents: default, back-office.');

    const goal = await waveloop(['schedule', 'create', id, ' ', '--every', '1h'], env);
    expect(goal.code).toBe(2);
    expect(goal.stderr).toMatch(/^Invalid run input: goal: /);

    const zone = await waveloop(
      ['schedule', 'create', id, 'Send the report', '--cron', '0 9 * * *', '--timezone', 'Mars/Olympus'],
      env,
    );
    expect(zone.code).toBe(2);
    expect(zone.stderr).toMatch(new RegExp(`^Schedule "${id}" refused: .*Mars/Olympus`));

    const timing = await waveloop(['schedule', 'create', id, 'Send the report'], env);
    expect(timing.code).toBe(2);
    expect(timing.stderr.trim()).toBe('Give the schedule a timing: --cron "<expression>" or --every <duration>.');

    expect(await scheduleNames()).not.toContain(id);
  });

  it('create --priority --fairness-key --fairness-weight: each run the schedule starts carries them as its Priority; out of range is refused and nothing is made', async () => {
    const id = name();
    const bad = await waveloop(['schedule', 'create', id, 'Send the report', '--every', '1h', '--priority', '9'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^Invalid run input: priority: /);
    expect(await scheduleNames()).not.toContain(id);

    const created = await waveloop(
      ['schedule', 'create', id, 'Send the report', '--every', '1h', '--paused', '--priority', '2'].concat([
        '--fairness-key',
        'acme',
        '--fairness-weight',
        '2.5',
      ]),
      env,
    );
    expect(created.code, created.stderr).toBe(0);
    try {
      const { action } = await cli.h.client.schedule.getHandle(id).describe();
      expect(action.type === 'startWorkflow' && action.priority).toMatchObject({
        priorityKey: 2,
        fairnessKey: 'acme',
        fairnessWeight: 2.5,
      });
    } finally {
      await waveloop(['schedule', 'delete', id], env);
    }
  });

  it("update: what is not given stays (the runs' limit, tools, webhooks, priority); a setting a goal tree does not take is refused", async () => {
    const id = name();
    const created = await waveloop(
      ['schedule', 'create', id, 'Send the report', '--every', '1h', '--paused'].concat(
        ['--max-iterations', '3', '--tools', 'search_users,get_user', '--priority', '2'],
        ['--webhooks', 'https://ops.example.com/hook', '--max-cost-usd', '0.5'],
      ),
      env,
    );
    expect(created.code, created.stderr).toBe(0);
    try {
      const updated = await waveloop(['schedule', 'update', id, '--agent', 'back-office'], env);
      expect(updated.code, updated.stderr).toBe(0);
      const report = JSON.parse((await waveloop(['schedule', 'describe', id, '--json'], env)).stdout) as {
        run: { kind: string; input: Record<string, unknown> };
      };
      expect(report.run).toEqual({
        kind: 'agent',
        input: {
          goal: 'Send the report',
          agent: 'back-office',
          maxIterations: 3,
          tools: ['search_users', 'get_user'],
          priority: 2,
          webhooks: ['https://ops.example.com/hook'],
          maxCostUsd: 0.5,
          // Its runs are started by who made the schedule.
          startedBy: os.userInfo().username,
        },
      });
      const tree = await waveloop(['schedule', 'update', id, '--goal-tree', '--max-iterations', '4'], env);
      expect(tree.code).toBe(2);
      expect(tree.stderr.trim()).toBe('--max-iterations does not apply to a goal tree.');
    } finally {
      await waveloop(['schedule', 'delete', id], env);
    }
  });

  it('create, trigger, describe, update, pause, delete: a triggered run is an ordinary run tied to its schedule', async () => {
    const id = name();
    cli.fake.script({ content: 'Report sent.' });
    const created = await waveloop(
      ['schedule', 'create', id, 'Send the weekly report', '--every', '1h', '--agent', 'back-office'],
      env,
    );
    expect(created.stderr).toBe('');
    expect(created.stdout).toContain(`Created schedule ${id}: every 1h.`);

    expect((await waveloop(['schedule', 'trigger', id], env)).stdout).toContain(`Triggered schedule ${id}.`);
    const described = await eventually(
      () => waveloop(['schedule', 'describe', id], env),
      (out) => /COMPLETED/.test(out.stdout),
    );
    expect(described.stdout).toContain(`Schedule:   ${id} (agent run)`);
    expect(described.stdout).toContain('Goal:       Send the weekly report');
    expect(described.stdout).toContain('Timing:     every 1h · overlap skip');
    const [, runId] = /\s(\S+)\s+COMPLETED/.exec(described.stdout)!;
    expect(runId!.startsWith(`${id}-`)).toBe(true);
    const run = await cli.h.client.workflow.getHandle(runId!).describe();
    expect(run.memo).toMatchObject({ schedule: id });
    expect(run.searchAttributes.TemporalScheduledById).toEqual([id]);
    expect(await cli.client.runs.result(runId!)).toMatchObject({ status: 'completed', answer: 'Report sent.' });
    const listed = await eventually(
      () => waveloop(['list', '--schedule', id], env),
      (out) => out.stdout.includes(runId!),
    );
    expect(listed.stdout.trim().split('\n').slice(1)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${runId}\\s+completed\\s+\\S+\\s+${os.userInfo().username}\\s+agent run\\s+–\\s+Send the weekly report$`,
        ),
      ),
    ]);

    const updated = await waveloop(
      ['schedule', 'update', id, '--cron', '0 9 * * 1-5', '--timezone', 'Europe/Berlin'],
      env,
    );
    expect(updated.code).toBe(0);
    expect(await waveloop(['schedule', 'pause', id], env)).toMatchObject({ code: 0 });
    const schedules = await waveloop(['schedule', 'list'], env);
    expect(schedules.stdout.split('\n')[0]).toMatch(/^NAME\s+KIND\s+TIMING\s+STATE\s+NEXT\s+GOAL$/);
    expect(schedules.stdout).toMatch(
      new RegExp(
        `^${id}\\s+agent\\s+0 9 \\* \\* 1-5 \\(Europe/Berlin\\)\\s+paused\\s+\\S+\\s+Send the weekly report$`,
        'm',
      ),
    );

    expect((await waveloop(['schedule', 'delete', id], env)).stdout).toContain(`Deleted schedule ${id}.`);
    expect(await scheduleNames()).not.toContain(id);
    const gone = await waveloop(['schedule', 'describe', id], env);
    expect(gone.code).toBe(2);
    expect(gone.stderr).toContain(`No schedule named "${id}"`);
  });

  it('list while schedules are deleted: a schedule the list still names but that is gone is left out, and the list succeeds', async () => {
    const ids = Array.from({ length: 6 }, name);
    for (const id of ids) {
      const made = await waveloop(['schedule', 'create', id, 'Send the report', '--every', '1h'], env);
      expect(made.code).toBe(0);
    }
    await eventually(scheduleNames, (names) => ids.every((id) => names.includes(id)), {
      problem: 'The schedules were never listed.',
    });
    // The list comes from the visibility store, which names a schedule for a moment after it is
    // deleted; each deletion runs while lists are read.
    const lists: Array<Promise<{ code: number | null; stderr: string }>> = [];
    for (const id of ids) {
      const deleted = waveloop(['schedule', 'delete', id], env);
      lists.push(waveloop(['schedule', 'list', '--json'], env), waveloop(['schedule', 'list', '--json'], env));
      expect((await deleted).code).toBe(0);
      lists.push(waveloop(['schedule', 'list', '--json'], env));
    }
    for (const listed of await Promise.all(lists)) expect(listed).toMatchObject({ code: 0, stderr: '' });
    await eventually(scheduleNames, (names) => ids.every((id) => !names.includes(id)), {
      problem: 'A deleted schedule stayed listed.',
    });
  });

  it('by default a run that is due while the last one waits for a person is skipped, not piled up', async () => {
    const id = name();
    cli.fake.script({ toolCalls: [{ name: 'ask_question', args: { question: 'Which quarter?' } }] });
    await waveloop(['schedule', 'create', id, 'Prepare the quarterly numbers', '--every', '1h'], env);
    await waveloop(['schedule', 'trigger', id], env);
    const handle = cli.h.client.schedule.getHandle(id);
    const first = await eventually(
      () => handle.describe(),
      (d) => d.info.recentActions.length === 1,
    );
    const runId = first.info.recentActions[0]!.action.workflow.workflowId;
    await eventually(
      () => cli.client.runs.progress(runId),
      (progress) => progress.pendingQuestions.length === 1,
    );

    await waveloop(['schedule', 'trigger', id], env);
    const after = await eventually(
      () => handle.describe(),
      (d) => d.info.numActionsSkippedOverlap === 1,
    );
    expect(after.info.recentActions.map((action) => action.action.workflow.workflowId)).toEqual([runId]);

    await cli.client.runs.handle(runId).terminate('test over');
    await waveloop(['schedule', 'delete', id], env);
  });
});
