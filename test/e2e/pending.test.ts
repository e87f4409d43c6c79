import * as os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PendingDecision } from '../../src/client/pending';
import { cliFixture, waveloop, type CliFixture } from '../support/cli';
import { toolMessages } from '../support/fake-model';
import { waitForProgress } from '../support/harness';

let cli: CliFixture;
beforeAll(async () => {
  cli = await cliFixture('pending');
});
afterAll(() => cli.stop());

/** Starts a detached run with `id` and waits until it waits for a person (`status`). */
async function startWaiting(id: string, args: string[], status: string): Promise<void> {
  const started = await waveloop(['run', '--detach', '--id', id, ...args], cli.env);
  expect(started.code, started.stderr).toBe(0);
  await waitForProgress(cli.h.client, cli.client.runs.handle(id), (progress) => progress.status === status);
}

/** `waveloop pending --json`, this file's runs only (other files' runs share the server). */
async function pendingHere(ids: string[]): Promise<PendingDecision[]> {
  const listed = await waveloop(['pending', '--json'], cli.env);
  expect(listed.code, listed.stderr).toBe(0);
  return (JSON.parse(listed.stdout) as PendingDecision[]).filter((d) => ids.includes(d.workflowId));
}

describe('waveloop pending', () => {
  it('lists every decision waiting across runs, oldest first, with the command that gives it; the commands work', async () => {
    const [approval, question, chat] = ['pending-approval', 'pending-question', 'pending-chat'];
    cli.fake.script(
      { toolCalls: [{ name: 'update_user', args: { id: 2, company: 'EPAM' } }] },
      { toolCalls: [{ name: 'ask_question', args: { question: 'Which company?' } }] },
      { content: 'Hello. What shall I look up?' },
      { content: 'Bob now works at EPAM.' },
      { content: 'Noted: Initech.' },
    );
    await startWaiting(approval, ['Move Bob to EPAM'], 'waiting_for_approval');
    await startWaiting(question, ['Set the company'], 'waiting_for_input');
    await startWaiting(chat, ['--chat', 'Chat with me'], 'waiting_for_message');

    const decisions = await pendingHere([approval, question, chat]);
    expect(decisions.map((d) => [d.workflowId, d.kind])).toEqual([
      [approval, 'approval'],
      [question, 'question'],
      [chat, 'message'],
    ]);
    const [move, ask, talk] = decisions;
    expect(move).toMatchObject({
      tool: 'update_user',
      args: { id: 2, company: 'EPAM' },
      goal: 'Move Bob to EPAM',
      // What the person deciding reads: the tool, who it is and what changes, who asked, and the agent.
      description: expect.stringContaining("Changes a user's name, email and/or company"),
      preview: { text: 'Bob Martin (user 2)', changes: [{ field: 'company', before: 'Initech', after: 'EPAM' }] },
      startedBy: os.userInfo().username,
      agent: 'default',
      quorum: 1,
      approvals: [],
    });
    expect(Date.parse(move.startedAt!)).toBeLessThanOrEqual(Date.parse(move.waitingSince));
    expect(move.command).toBe(`waveloop approve ${approval} ${move.callId}`);
    expect(ask).toMatchObject({ question: 'Which company?', command: `waveloop answer ${question} "<your answer>"` });
    expect(talk).toMatchObject({
      message: 'Hello. What shall I look up?',
      command: `waveloop send ${chat} "<your message>"`,
    });
    expect(decisions.every((d) => !Number.isNaN(Date.parse(d.waitingSince)))).toBe(true);

    // The table a person reads: one line a decision, with what waits and the command.
    const table = await waveloop(['pending'], cli.env);
    expect(table.stdout.split('\n')[0]).toMatch(/^WAITED +KIND +RUN +WHAT +DECIDE WITH$/);
    expect(table.stdout).toMatch(
      new RegExp(
        `\\d+[smhd] +approval +${approval} +wave 1 · update_user\\(id=2, company=EPAM\\) ` +
          `\\[Bob Martin \\(user 2\\); company: Initech → EPAM\\] started by ${os.userInfo().username} +waveloop approve ${approval} \\S+`,
      ),
    );
    expect(table.stdout).toMatch(new RegExp(`question +${question} +Which company\\?`));

    // The listed commands decide: each decision leaves the list.
    const approved = await waveloop(move.command.split(' ').slice(1), cli.env);
    expect(approved.code, approved.stderr).toBe(0);
    expect(await cli.client.runs.result(approval)).toMatchObject({
      status: 'completed',
      answer: 'Bob now works at EPAM.',
    });
    const answered = await waveloop(['answer', question, 'Initech'], cli.env);
    expect(answered.code, answered.stderr).toBe(0);
    expect(await cli.client.runs.result(question)).toMatchObject({ status: 'completed', answer: 'Noted: Initech.' });
    expect((await pendingHere([approval, question, chat])).map((d) => d.workflowId)).toEqual([chat]);

    const ended = await waveloop(['end', chat], cli.env);
    expect(ended.code, ended.stderr).toBe(0);
    expect(await pendingHere([approval, question, chat])).toEqual([]);
  });
});

describe('waveloop pending: the order', () => {
  it('oldest wait first, whatever order the runs started in', async () => {
    const [first, second] = ['pending-started-first', 'pending-started-second'];
    // The run started first waits second: its second model reply comes only once the other run waits.
    let secondWaits!: () => void;
    const otherWaiting = new Promise<void>((resolve) => (secondWaits = resolve));
    cli.fake.route(
      async (request) => {
        const goal = String(request.messages.find((m) => m.role === 'user')?.content);
        if (goal.includes('Xavier') && toolMessages(request).length === 0)
          return { toolCalls: [{ name: 'search_users', args: { name: 'Bob' } }] };
        if (goal.includes('Xavier')) {
          await otherWaiting;
          return { toolCalls: [{ name: 'update_user', args: { id: 2, company: 'Xavier Inc' } }] };
        }
        return { toolCalls: [{ name: 'update_user', args: { id: 3, company: 'Yolanda Ltd' } }] };
      },
      { atMost: 3 },
    );
    const started = await waveloop(['run', '--detach', '--id', first, 'Move Bob to Xavier Inc'], cli.env);
    expect(started.code, started.stderr).toBe(0);
    await waitForProgress(cli.h.client, cli.client.runs.handle(first), (p) => p.iteration === 2);
    await startWaiting(second, ['Move Carol to Yolanda Ltd'], 'waiting_for_approval');
    secondWaits();
    await waitForProgress(cli.h.client, cli.client.runs.handle(first), (p) => p.status === 'waiting_for_approval');

    const decisions = await pendingHere([first, second]);
    expect(decisions.map((d) => d.workflowId)).toEqual([second, first]);
    expect(Date.parse(decisions[0]!.waitingSince)).toBeLessThan(Date.parse(decisions[1]!.waitingSince));
    expect(Date.parse(decisions[1]!.startedAt!)).toBeLessThan(Date.parse(decisions[0]!.startedAt!));
    await Promise.all([first, second].map((id) => cli.client.runs.cancel(id)));
  });
});
