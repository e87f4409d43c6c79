import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WaveloopClient } from '../../src/client/waveloop-client';
import { RUN_STATES } from '../../src/contract/agent-loop';
import { cliFixture, waveloop, type CliFixture } from '../support/cli';

/**
 * The CLI handed an id it cannot use as asked: a goal tree's where an agent run's belongs, an id
 * of nothing, a run that has ended. Each says what the id is, and which command takes it.
 */
describe('waveloop CLI with ids of the other kind, of nothing, of ended runs', () => {
  let cli: CliFixture;

  beforeAll(async () => {
    cli = await cliFixture('cli-ids');
    cli.fake.script({ content: 'Done.' });
    await cli.client.runs.start({ goal: 'Say done' }, { workflowId: 'ids-done' });
    await cli.client.runs.result('ids-done');
    // A goal tree no worker serves: it stays running, as far as it got.
    await new WaveloopClient(cli.h.client, `${cli.taskQueue}-unserved`).goals.start(
      { goal: 'Plan a trip' },
      { workflowId: 'ids-goal' },
    );
  });
  afterAll(() => cli.stop());

  it('an agent run command given a goal tree says what it is and which command to use; status and cancel take both kinds', async () => {
    const [show, follow, approve, status, cancel] = await Promise.all([
      waveloop(['show', 'ids-goal'], cli.env),
      waveloop(['follow', 'ids-goal'], cli.env),
      waveloop(['approve', 'ids-goal', 'call_1'], cli.env),
      waveloop(['status', 'ids-goal'], cli.env),
      waveloop(['cancel', 'ids-goal'], cli.env),
    ]);
    for (const out of [show, follow, approve]) {
      expect(out).toMatchObject({ code: 2, stdout: '' });
      expect(out.stderr).toBe('ids-goal is a goal tree: use `waveloop tree ids-goal`.\n');
    }
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(
      /^Goal tree: {2}ids-goal\nStarted: {4}\S+\nStatus: {5}running\nGoals: {6}`waveloop tree ids-goal` shows them\n$/,
    );
    expect(cancel).toMatchObject({ code: 0, stdout: 'Cancellation of ids-goal requested.\n' });
  });

  it('an id of nothing is "No run or goal tree with id …", whatever the command', async () => {
    const outs = await Promise.all([
      waveloop(['status', 'ids-nothing'], cli.env),
      waveloop(['answer', 'ids-nothing', 'yes'], cli.env),
      waveloop(['cancel', 'ids-nothing'], cli.env),
    ]);
    for (const out of outs)
      expect(out).toMatchObject({ code: 1, stdout: '', stderr: 'No run or goal tree with id ids-nothing.\n' });
  });

  it('answering, deciding, messaging or cancelling a run that has ended says it has ended, how, and exits 1', async () => {
    // approve, deny, answer and end go the same way; send asks the run's progress first.
    const commands: Array<[string, string[]]> = [
      ['approve', ['approve', 'ids-done', 'call_1']],
      ['send', ['send', 'ids-done', 'hello']],
      ['cancel', ['cancel', 'ids-done']],
    ];
    const outs = await Promise.all(commands.map(([, args]) => waveloop(args, cli.env)));
    outs.forEach((out, i) =>
      expect(out).toMatchObject({
        code: 1,
        stdout: '',
        stderr: `Run ids-done has ended (completed); nothing to ${commands[i][0]}.\n`,
      }),
    );
  });

  it('list --status refuses a status runs do not have, naming the ones they do (exit 2); server status exits 1 when the server is not running', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'waveloop-cli-ids-'));
    const [list, server] = await Promise.all([
      waveloop(['list', '--status', 'stuck'], cli.env),
      waveloop(['server', 'status'], { WAVELOOP_DATA_DIR: dataDir }),
    ]);
    fs.rmSync(dataDir, { recursive: true, force: true });

    expect(list.code).toBe(2);
    expect(list.stderr).toContain(
      `error: option '--status <status>' argument 'stuck' is invalid. Allowed choices are ${RUN_STATES.join(', ')}.`,
    );
    expect(server).toMatchObject({ code: 1, stdout: 'Not running.\n' });
  });
});
