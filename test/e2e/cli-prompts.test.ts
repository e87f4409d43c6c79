import * as os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliFixture, waveloop, waveloopAtTerminal, type CliFixture } from '../support/cli';
import { waitForProgress } from '../support/harness';
import { eventuallyMatches, gate, settled } from '../support/wait';

/**
 * The prompts of `waveloop run` and `follow` at a terminal, when the person does not answer them
 * there: someone else decides from another terminal, the run ends, Ctrl-C, SIGTERM.
 */
describe('waveloop CLI prompts at a terminal', () => {
  let cli: CliFixture;
  const identity = `${os.userInfo().username}@${os.hostname()}`;

  beforeAll(async () => {
    cli = await cliFixture('cli-prompts');
  });
  afterAll(() => cli.stop());

  const pendingCall = async (workflowId: string) =>
    (await waitForProgress(cli.h.client, cli.client.runs.handle(workflowId), (p) => p.pendingApprovals.length > 0))
      .pendingApprovals[0].callId;

  it('Ctrl-C at the approval prompt stops following (130), not the run; a later follow closes its prompt once the call is approved elsewhere, and says by whom', async () => {
    // The model's last reply waits until the test has seen the prompt close, so the run goes on meanwhile.
    const held = gate();
    cli.fake.script({ toolCalls: [{ name: 'update_user', args: { id: 2, company: 'Initech' } }] }, async () => {
      await held.until;
      return { content: 'Moved.' };
    });
    const run = waveloopAtTerminal(['run', '--agent', 'back-office', '--id', 'prompt-ctrl-c', 'Move user 2'], cli.env);
    await eventuallyMatches(run.output, /Approve wave 1 · update_user\(id=2, company=Initech\)\? \[y\/N\] $/);
    run.press('\x03');
    const stopped = await settled(run.done, 'Ctrl-C at the prompt did not end waveloop run.');
    expect(stopped.code, stopped.output).toBe(130);
    expect(stopped.output).toContain('Stopped following prompt-ctrl-c; the run goes on in Temporal.');
    expect(stopped.output).not.toContain('Could not decide');
    const callId = await pendingCall('prompt-ctrl-c');

    const follow = waveloopAtTerminal(['follow', 'prompt-ctrl-c'], cli.env);
    await eventuallyMatches(follow.output, /Approve wave 1 · update_user\(id=2, company=Initech\)\? \[y\/N\] $/);
    expect((await waveloop(['approve', 'prompt-ctrl-c', callId], cli.env)).code).toBe(0);
    await eventuallyMatches(
      follow.output,
      new RegExp(`wave 1 · update_user\\(id=2, company=Initech\\) was approved elsewhere by ${identity}\\.`),
    );
    // A keystroke meant for the closed prompt changes nothing.
    follow.type('y');
    held.open();
    const out = await settled(follow.done, 'waveloop follow kept waiting after the call was decided.');

    expect(out.code, out.output).toBe(0);
    expect(out.output).toContain('Answer (2 iterations');
    expect(out.output).not.toMatch(/No such run|Could not/);
    cli.fake.assertDone();
  });

  it('SIGTERM at the approval prompt ends waveloop run (143); a follow whose prompt is open says so when the run is cancelled', async () => {
    cli.fake.script({ toolCalls: [{ name: 'update_user', args: { id: 4, company: 'Hooli' } }] });
    const run = waveloopAtTerminal(['run', '--agent', 'back-office', '--id', 'prompt-sigterm', 'Move user 4'], cli.env);
    await eventuallyMatches(run.output, /Approve wave 1 · update_user\(id=4, company=Hooli\)\? \[y\/N\] $/);
    run.kill('SIGTERM');
    const stopped = await settled(run.done, 'waveloop run ignored SIGTERM at the prompt.');
    expect(stopped.code, stopped.output).toBe(143);
    expect(stopped.output).toContain('Stopped following prompt-sigterm; the run goes on in Temporal.');

    const follow = waveloopAtTerminal(['follow', 'prompt-sigterm'], cli.env);
    await eventuallyMatches(follow.output, /Approve wave 1 · update_user\(id=4, company=Hooli\)\? \[y\/N\] $/);
    expect((await waveloop(['cancel', 'prompt-sigterm'], cli.env)).code).toBe(0);
    await eventuallyMatches(
      follow.output,
      /Run prompt-sigterm ended \(cancelled\) before wave 1 · update_user\(id=4, company=Hooli\) was settled\./,
    );
    const out = await settled(follow.done, 'waveloop follow kept its prompt after the run ended.');

    expect(out.code, out.output).toBe(1);
    expect(out.output).toContain('Stopped: cancelled after 1 iterations');
    cli.fake.assertDone();
  });
});
