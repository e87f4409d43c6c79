import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { goalEventRecord } from '../../src/client/goal-tree';
import { cliFixture, waveloop, waveloopAtTerminal, waveloopLive, type CliFixture } from '../support/cli';
import type { FakeModel } from '../support/fake-model';
import { achievement, assess, decomposition, goalModel, synthesis } from '../support/goal-model';
import { eventuallyMatches } from '../support/wait';

/**
 * `waveloop goal`, `tree` and `list` end to end. A worker in this process serves the fixture's task
 * queue (as `waveloop worker` would); the first tree runs where no worker polls, to see `waveloop
 * goal` start its own.
 */
describe('waveloop goal and tree', () => {
  let cli: CliFixture;
  let fake: FakeModel;
  let env: Record<string, string>;

  beforeAll(async () => {
    cli = await cliFixture('goal-cli');
    ({ fake, env } = cli);
  });
  afterAll(() => cli.stop());

  const GOAL = 'Compute the area and perimeter of a 3 by 4 rectangle';
  const [AREA, PERIMETER] = ['Compute the area', 'Compute the perimeter'];

  it('waveloop goal: starts a tree, prints its events live, then the tree and the result', async () => {
    const router = goalModel({
      [GOAL]: {
        assessment: [assess.decompose()],
        decomposition: [decomposition(AREA, PERIMETER)],
        achievement: [achievement(true)],
        synthesis: [
          synthesis('Area 12, perimeter 14.', ['area 12', 'perimeter 14'], 0.9, ['3 * 4 = 12', 'The perimeter is 14.']),
        ],
      },
      [AREA]: {
        assessment: [assess.tools()],
        agent: [{ toolCalls: [{ name: 'calculator', args: { expression: '3 * 4' } }] }, { content: 'The area is 12.' }],
      },
      [PERIMETER]: { assessment: [assess.answer()], synthesis: [synthesis('The perimeter is 14.')] },
    });
    fake.script(...router.steps);

    const solo = { ...env, WAVELOOP_TASK_QUEUE: `${cli.taskQueue}-solo` };
    const limits = ['--max-goals', '5', '--timeout-seconds', '600', '--max-cost-usd', '1'];
    // A process of its own: the worker it starts is the command's, with the runtime the CLI installs.
    const out = await waveloop(['goal', '--id', 'cli-goal', '--tools', 'calculator', ...limits, GOAL], solo, {
      process: true,
    });

    expect(out.stderr).toContain('running one in this process for the tree');
    expect(out.code).toBe(0);
    fake.assertDone();
    router.assertDone();
    expect(out.stderr).toContain('Goal tree cli-goal started');
    expect(out.stdout).toContain(`cli-goal · decomposed · 2 sub-goals in 1 level(s) · ${GOAL}`);
    // The tool loop's wave, as it settled, before the goal it executed says it is done.
    const lines = out.stdout.split('\n');
    const wave = lines.indexOf('cli-goal/1/exec · wave 1 · calculator(expression=3 * 4) → 12');
    expect(wave).toBeGreaterThan(-1);
    expect(lines.indexOf(`cli-goal/1 · executed · done (tools) · ${AREA}`)).toBeGreaterThan(wave);
    expect(out.stdout).toContain(`cli-goal/2 · executed · done (answer) · ${PERIMETER}`);
    expect(out.stdout).toMatch(
      new RegExp(`achieved +\\d+\\.\\ds  ${GOAL}  \\[cli-goal\\]\\n  → Area 12, perimeter 14\\.`),
    );
    expect(out.stdout).toMatch(/\n  achieved +\d+\.\ds  Compute the area  \[cli-goal\/1\]\n    → The area is 12\./);
    expect(out.stdout).toContain(
      'Result: achieved (3 goals, 990 tokens, $0.0000)\nArea 12, perimeter 14.\nKey findings:\n- area 12\n- perimeter 14\nEvidence:\n- 3 * 4 = 12\n- The perimeter is 14.',
    );
  });

  it('waveloop tree: prints the tree from the histories, with no worker running; its event log is the one --jsonl prints', async () => {
    const tree = await waveloop(['tree', 'cli-goal'], env);
    expect(tree.code).toBe(0);
    expect(tree.stdout.split('\n')[0]).toMatch(new RegExp(`^achieved +\\d+\\.\\ds  ${GOAL}  \\[cli-goal\\]$`));
    expect(tree.stdout).toContain('Used: 3 goals, 990 tokens');

    // `tree --jsonl` prints these events, one JSON object a line, with the log's field names.
    const events = await cli.client.goals.events('cli-goal');
    const jsonl = await waveloop(['tree', 'cli-goal', '--jsonl'], env);
    expect(
      jsonl.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual(events.map(goalEventRecord));
    expect(JSON.parse(jsonl.stdout.split('\n')[0])).toMatchObject({
      event_type: 'started',
      goal: GOAL,
      parent_goal: null,
      workflow_id: 'cli-goal',
    });
    expect(events.filter((e) => e.goal === GOAL).map((e) => e.eventType)).toEqual([
      'started',
      'assessed',
      'decomposed',
      'achieved',
      'synthesized',
    ]);
    expect(events.filter((e) => e.goal === AREA).map((e) => e.eventType)).toEqual(['started', 'assessed', 'executed']);
    expect(events.find((e) => e.goal === PERIMETER)).toMatchObject({
      depth: 1,
      parentGoal: GOAL,
      workflowId: 'cli-goal/2',
    });
  });

  it('waveloop tree: an agent run or an unknown id says what it is and which command to use, and exits 1', async () => {
    const run = await waveloop(['tree', 'cli-goal/1/exec'], env);
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr.trim()).toBe(
      'cli-goal/1/exec is an agent run, not a goal tree: use `waveloop status cli-goal/1/exec` or `waveloop show cli-goal/1/exec`.',
    );

    const unknown = await waveloop(['tree', 'no-such-tree'], env);
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr.trim()).toBe(
      'No goal tree with id no-such-tree: `waveloop list` shows the recent agent runs and goal trees.',
    );
  });

  it('waveloop goal: a priority or fairness weight out of range is refused before a tree starts (exit 2)', async () => {
    const out = await waveloop(['goal', '--priority', '0', '--fairness-weight', '5000', 'Anything'], env);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('priority must be a whole number from 1 to 5');
    expect(out.stderr).toContain('fairnessWeight must be a number from 0.001 to 1,000');
  });

  it('waveloop list: shows the goal tree by its root, and the agent run that executed a sub-goal, not the sub-goals', async () => {
    // Other test files start runs on the same server meanwhile: a long list keeps this file's in it.
    const list = await waveloop(['list', '--limit', '1000'], env);
    expect(list.code).toBe(0);
    const lines = list.stdout.trim().split('\n');
    expect(lines).toContainEqual(
      expect.stringMatching(new RegExp(`^cli-goal +completed +\\S+ +\\S+ +goal tree +– +${GOAL.slice(0, 40)}`)),
    );
    expect(lines).toContainEqual(expect.stringMatching(/^cli-goal\/1\/exec +completed +\S+ +\S+ +agent run /));
    expect(lines.filter((line) => /^cli-goal\/\d+ /.test(line))).toEqual([]);

    // `list --json` prints these summaries: the tree's root is a pursueGoal run.
    expect((await cli.client.runs.list({ limit: 1000 })).find((run) => run.workflowId === 'cli-goal')).toMatchObject({
      workflowType: 'pursueGoal',
      execution: 'COMPLETED',
    });
  });

  it("waveloop goal: a tool loop that calls one tool alike again and again prints each wave, and the goal's findings and evidence once", async () => {
    const SIX_SEVEN = 'Compute 6*7 carefully';
    const again = { toolCalls: [{ name: 'calculator', args: { expression: '6*7' } }] };
    const router = goalModel({
      [SIX_SEVEN]: { assessment: [assess.tools()], agent: [again, again, again, { content: 'It is 42.' }] },
    });
    fake.script(...router.steps);

    const out = await waveloop(['goal', '--id', 'cli-goal-again', '--tools', 'calculator', SIX_SEVEN], env);
    expect(out.code, out.stderr).toBe(0);
    router.assertDone();
    for (const wave of [1, 2, 3])
      expect(out.stdout).toContain(`cli-goal-again/exec · wave ${wave} · calculator(expression=6*7) → 42\n`);
    expect(out.stdout).toContain(
      'It is 42.\nKey findings:\n- calculator({"expression":"6*7"}) → 42\nEvidence:\n- 42\n',
    );

    // The root's current details (the Web UI's) say the goal and how it ended.
    const metadata = await cli.h.client.workflow
      .getHandle('cli-goal-again')
      .query<{ currentDetails: string }>('__temporal_workflow_metadata');
    expect(metadata.currentDetails).toBe(`Goal: ${SIX_SEVEN}\n\n**achieved** · It is 42.`);
  });

  it("waveloop goal: a goal's tool loop waiting for an approval says so, with the command; approved, the tree goes on", async () => {
    const MOVE = 'Move Bob Martin to EPAM';
    const router = moveUserTree(MOVE, 1, 'EPAM');

    const running = waveloopLive(['goal', '--id', 'cli-goal-approval', '--tools', 'update_user', MOVE], env);
    const [, runId, callId] = await eventuallyMatches(
      running.stdout,
      /cli-goal-approval\/exec · approval needed: wave 1 · update_user\(id=1, company=EPAM\)\n  decide with: waveloop approve (cli-goal-approval\/exec) (\S+) /,
    );
    const approved = await waveloop(['approve', runId, callId], env);
    expect(approved.code).toBe(0);
    const out = await running.done;

    expect(out.code).toBe(0);
    fake.assertDone();
    router.assertDone();
    expect(out.stdout).toContain(`cli-goal-approval · executed · done (tools) · ${MOVE}`);
    // Printed once, though the loop waited through several polls.
    expect(out.stdout.match(/approval needed/g)).toHaveLength(1);
  });

  it("at a terminal, waveloop goal asks for a goal's tool-loop approval right there; approved, the tree goes on", async () => {
    const MOVE = 'Move Dana Scully to Initech';
    const router = moveUserTree(MOVE, 4, 'Initech');

    const terminal = waveloopAtTerminal(['goal', '--id', 'cli-goal-terminal', '--tools', 'update_user', MOVE], env);
    await eventuallyMatches(
      terminal.output,
      /cli-goal-terminal\/exec · approval needed: wave 1 · update_user\(id=4, company=Initech\)\nApprove wave 1 · update_user\(id=4, company=Initech\)\? \[y\/N\] $/,
    );
    terminal.type('y');
    const out = await terminal.done;

    expect(out.code, out.output).toBe(0);
    fake.assertDone();
    router.assertDone();
    expect(out.output).toContain(`cli-goal-terminal · executed · done (tools) · ${MOVE}`);
    expect(out.output).not.toContain('decide with: waveloop approve');
  });

  /** A tree whose one goal is executed by a tool loop that calls update_user (which waits for approval), scripted on the fake model. */
  function moveUserTree(goal: string, id: number, company: string) {
    const router = goalModel({
      [goal]: {
        assessment: [assess.tools()],
        agent: [
          { toolCalls: [{ name: 'update_user', args: { id, company } }] },
          { content: `User ${id} now works at ${company}.` },
        ],
      },
    });
    fake.script(...router.steps);
    return router;
  }

  it('waveloop goal: bad options are refused before anything starts, a renamed one with its new name', async () => {
    const out = await waveloop(['goal', '--max-depth', '0', 'x'], env);
    expect(out.code).not.toBe(0);
    expect(out.stderr).toContain('maxDepth must be a whole number from 1 to 50');
    const renamed = await waveloop(['goal', '--max-time', '10m', 'x'], env);
    expect(renamed.code).not.toBe(0);
    expect(renamed.stderr).toContain('`--max-time` is now `--timeout-seconds`');
  });
});
