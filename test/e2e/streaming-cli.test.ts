import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliFixture, waveloopLive, type CliFixture } from '../support/cli';
import type { FakeModel } from '../support/fake-model';
import { eventually, gate } from '../support/wait';

describe('waveloop run and follow: the model text streams in', () => {
  let cli: CliFixture;
  let fake: FakeModel;
  let env: Record<string, string>;

  beforeAll(async () => {
    cli = await cliFixture('streaming');
    ({ fake, env } = cli);
  });
  afterAll(() => cli.stop());

  it('prints the reply word by word while the model generates it, then the wave and the answer', async () => {
    const first = gate();
    const second = gate();
    fake.script(
      {
        content: 'Looking up Bob in the directory first.',
        toolCalls: [{ name: 'search_users', args: { name: 'Bob' } }],
        stream: { hold: { after: 3, until: first.until } },
      },
      { content: 'Bob Martin works at Acme Corp.', stream: { hold: { after: 2, until: second.until } } },
    );
    const run = waveloopLive(['run', '--id', 'cli-stream', 'Where does Bob work?'], env);

    // Three words are out and the model is still generating: the terminal shows them already.
    const partial = await eventually(run.stdout, (out) => out.includes('(iteration 1) Looking up Bob '));
    expect(fake.inFlight).toBe(1);
    expect(partial).not.toContain('directory');
    first.open();

    // The second reply is half generated; a follower started now, from another terminal, streams it too.
    const follow = waveloopLive(['follow', 'cli-stream'], env);
    await eventually(run.stdout, (out) => out.includes('(iteration 2) Bob Martin '));
    await eventually(follow.stdout, (out) => out.includes('(iteration 2) Bob Martin '));
    expect(run.stdout()).not.toContain('Acme');
    second.open();

    const [ran, followed] = await Promise.all([run.done, follow.done]);
    expect(ran.code).toBe(0);
    // Each reply is printed once, whole, on its own line, in order with the wave between them.
    expect(ran.stdout).toMatch(
      /\(iteration 1\) Looking up Bob in the directory first\.\nwave 1 · search_users\(name=Bob\) → .*\n\(iteration 2\) Bob Martin works at Acme Corp\.\n\nAnswer \(2 iterations, 220 tokens\):\nBob Martin works at Acme Corp\./,
    );
    expect(ran.stdout.split('Looking up Bob').length - 1).toBe(1);
    expect(followed.code).toBe(0);
    expect(followed.stdout).toMatch(
      /\(iteration 2\) Bob Martin works at Acme Corp\.\n\nAnswer \(2 iterations, 220 tokens\)/,
    );
    fake.assertDone();
  });

  it('with streaming off, the same run prints whole messages', async () => {
    // The answer waits until the follower has printed the first message whole (it polls the
    // run's status), so what is asserted below is what a person sees while the run goes on.
    const live: { run?: ReturnType<typeof waveloopLive> } = {};
    fake.script(
      {
        content: 'Looking up Bob in the directory first.',
        toolCalls: [{ name: 'search_users', args: { name: 'Bob' } }],
      },
      async () => {
        await eventually(
          async () => live.run?.stdout() ?? '',
          (out) => out.includes('(iteration 1) Looking up Bob'),
          { attempts: 400 },
        );
        return { content: 'Bob Martin works at Acme Corp.' };
      },
    );
    // A worker with streaming off (WAVELOOP_STREAM=false; test/settings.test.ts reads it) serves a queue of its own.
    const whole = `${cli.taskQueue}-whole`;
    await cli.serve(whole, { stream: false });
    live.run = waveloopLive(['run', 'Where does Bob work?'], { ...env, WAVELOOP_TASK_QUEUE: whole });
    const ran = await live.run.done;
    expect(ran.code).toBe(0);
    expect(fake.requests.every((request) => request.stream === undefined)).toBe(true);
    expect(ran.stdout).toMatch(
      /\(iteration 1\) Looking up Bob in the directory first\.\nwave 1 · search_users\(name=Bob\) → /,
    );
  });
});
