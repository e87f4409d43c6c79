import * as path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliFixture, waveloop, waveloopAtTerminal, waveloopLive, type CliFixture } from '../support/cli';
import { eventuallyMatches } from '../support/wait';

/**
 * `waveloop demo` (`npm run demo`) as a newcomer runs it. A worker in this process serves the
 * fixture's task queue with the fake model, as a `waveloop dev` left running would: with no model
 * endpoint configured the demo must not hand its run to it, but run on the scripted demo model
 * with a worker of its own; with an endpoint it runs like `waveloop run`, on that endpoint.
 */
describe('waveloop demo', () => {
  let cli: CliFixture;
  /** The fixture's environment without a model endpoint: a bare machine's. */
  let bare: Record<string, string | undefined>;

  beforeAll(async () => {
    cli = await cliFixture('cli-demo');
    bare = { ...cli.env, OPENAI_BASE_URL: undefined, OPENAI_API_KEY: undefined, WAVELOOP_MODEL: undefined };
  });
  afterAll(() => cli.stop());

  const bobsCompany = () => {
    const db = new Database(path.join(cli.dataDir, 'demo.db'), { readonly: true });
    try {
      return (db.prepare("SELECT company FROM users WHERE name = 'Bob Martin'").get() as { company: string }).company;
    } finally {
      db.close();
    }
  };

  it('with no model endpoint, at a terminal: it says it runs on the scripted demo model and how to use a real one, and asks for the approval right there; a denial changes nothing', async () => {
    const terminal = waveloopAtTerminal(['demo'], bare);
    await eventuallyMatches(terminal.output, /Approve wave 3 · update_user\(id=2, company=EPAM\)\? \[y\/N\] $/);
    terminal.type('n');
    await eventuallyMatches(terminal.output, /Reason \(the model reads it\): $/);
    terminal.type('not before the contract is signed');
    const out = await terminal.done;

    expect(out.code).toBe(0);
    expect(out.output).toContain('No model endpoint is configured: the demo runs on a scripted demo model');
    expect(out.output).toMatch(
      /For a real model, set OPENAI_API_KEY \(OpenAI\) or OPENAI_BASE_URL \(any OpenAI-compatible endpoint\)/,
    );
    expect(out.output).toContain(`running one in this process`);
    expect(out.output).toContain(`task queue "${cli.taskQueue}-demo"`);
    expect(out.output).toContain('(iteration 1) Let me find Bob first.');
    expect(out.output).toMatch(/wave 1 · search_users\(name=Bob\) → \[\{"id":2,"name":"Bob Martin"/);
    expect(out.output).toContain(
      "Bob's company was not changed: the change was denied (not before the contract is signed).",
    );
    expect(bobsCompany()).toBe('Initech');
    // The worker serving the configured queue, and its model, never saw the demo's run.
    expect(cli.fake.received).toBe(0);
  });

  it('with no model endpoint, piped: it prints the approve command and waits; approved from another terminal, Bob works at EPAM', async () => {
    const running = waveloopLive(['demo'], bare);
    const [, runId, callId] = await eventuallyMatches(
      running.stdout,
      /Approval needed: wave 3 · update_user\(id=2, company=EPAM\)\n {2}decide with: waveloop approve (\S+) (\S+) /,
    );
    const approved = await waveloop(['approve', runId, callId], bare);
    expect(approved.code).toBe(0);
    const out = await running.done;

    expect(out.code).toBe(0);
    expect(out.stderr).toContain('No model endpoint is configured: the demo runs on a scripted demo model');
    expect(out.stderr).toContain('OPENAI_API_KEY');
    expect(out.stderr).toContain('OPENAI_BASE_URL');
    expect(out.stderr).toContain(`Run ${runId} started`);
    expect(out.stdout).toMatch(/wave 2 · get_user\(id=2\) → \{"id":2,"name":"Bob Martin"/);
    expect(out.stdout).toMatch(/wave 3 · update_user\(id=2, company=EPAM\) → .*"company":"EPAM"/);
    expect(out.stdout).toMatch(
      /Answer \(4 iterations, \d+ tokens\):\nDone: Bob Martin \(user 2\) now works at EPAM; his email is unchanged\./,
    );
    expect(bobsCompany()).toBe('EPAM');
    expect(cli.fake.received).toBe(0);
    const status = await waveloop(['status', runId], bare);
    expect(status.stdout).toContain('Status:     completed');
  });

  it('with a model endpoint configured, it runs the demo on it, like waveloop run, and says nothing of a scripted model', async () => {
    cli.fake.script({ content: 'Bob already works at EPAM.' });
    const out = await waveloop(['demo'], cli.env);

    expect(out.code).toBe(0);
    expect(out.stderr).not.toContain('scripted');
    expect(out.stdout).toContain('Bob already works at EPAM.');
    cli.fake.assertDone();
    expect(cli.fake.requests[0].model).toBe('fake-model');
    expect(cli.fake.requests[0].messages.at(-1)).toMatchObject({ content: 'Find Bob and update his company to EPAM' });
  });
});
