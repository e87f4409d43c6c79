import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, cliFixture, ROOT, waveloop, waveloopAtTerminal, waveloopLive, type CliFixture } from '../support/cli';
import { toolMessages } from '../support/fake-model';
import { waitForProgress } from '../support/harness';
import { eventually, eventuallyMatches } from '../support/wait';

/**
 * The CLI end to end, as a person uses it from terminals. A worker in this process serves the
 * fixture's task queue for the whole file (as `waveloop worker` would), so commands do not each
 * start one; the first test runs where no worker polls, to see `waveloop run` start its own.
 */
describe('waveloop CLI', () => {
  let cli: CliFixture;
  let env: Record<string, string>;
  /** A task queue no worker polls. */
  let solo: Record<string, string>;

  beforeAll(async () => {
    cli = await cliFixture('cli');
    env = cli.env;
    solo = { ...env, WAVELOOP_TASK_QUEUE: `${cli.taskQueue}-solo` };
  });
  afterAll(() => cli.stop());

  const userCompany = (id: number | string) => {
    const db = new Database(path.join(cli.dataDir, 'demo.db'), { readonly: true });
    try {
      return (
        db
          .prepare(
            typeof id === 'number'
              ? 'SELECT company FROM users WHERE id = ?'
              : 'SELECT company FROM users WHERE name = ?',
          )
          .get(id) as { company: string }
      ).company;
    } finally {
      db.close();
    }
  };

  it('waveloop run: with no worker polling it runs one in-process, prints each wave live and the answer; status and approve from another terminal; the database changes', async () => {
    cli.fake.script(
      { toolCalls: [{ name: 'search_users', args: { name: 'Bob' } }] },
      (req) => ({ toolCalls: [{ name: 'get_user', args: { id: JSON.parse(toolMessages(req)[0])[0].id } }] }),
      (req) => ({
        toolCalls: [{ name: 'update_user', args: { id: JSON.parse(toolMessages(req)[1]).id, company: 'EPAM' } }],
      }),
      { content: 'Bob Martin now works at EPAM.' },
    );
    const running = waveloopLive(
      ['run', '--agent', 'back-office', '--id', 'cli-find-bob', 'Find Bob and update his company to EPAM'],
      solo,
    );
    // update_user waits for approval: the run says how to decide it, and a person does, from another terminal.
    const [, callId] = await eventuallyMatches(
      running.stdout,
      /Approval needed: wave 3 · update_user\(id=\d+, company=EPAM\)\n  decide with: waveloop approve cli-find-bob (\S+) /,
    );
    const status = await waveloop(['status', 'cli-find-bob'], solo);
    expect(status.stdout).toContain('Status:     waiting_for_approval');
    expect(status.stdout).toMatch(
      new RegExp(`Approval:   wave 3 · update_user\\(id=\\d+, company=EPAM\\) \\(call ${callId}\\)`),
    );
    const approved = await waveloop(['approve', 'cli-find-bob', callId], solo);
    expect(approved.stdout).toMatch(new RegExp(`^Approved update_user \\(call ${callId}\\), as \\S+\\.$`, 'm'));
    const out = await running.done;

    expect(out.stderr).toContain('running one in this process');
    expect(out.code).toBe(0);
    // How the command goes is on stderr; stdout has what the run says.
    expect(out.stderr).toContain('Run cli-find-bob started');
    expect(out.stdout).not.toContain('Run cli-find-bob started');
    expect(out.stdout).toMatch(/wave 1 · search_users\(name=Bob\) → \[\{"id":\d+,"name":"Bob Martin"/);
    expect(out.stdout).toMatch(/wave 2 · get_user\(id=\d+\) → /);
    expect(out.stdout).toMatch(/wave 3 · update_user\(id=\d+, company=EPAM\) → .*"company":"EPAM"/);
    expect(out.stdout).toContain('Answer (4 iterations, 440 tokens):\nBob Martin now works at EPAM.');
    cli.fake.assertDone();
    // The model was the one configured in the environment, with its key.
    expect(cli.fake.requests[0].model).toBe('fake-model');
    expect(cli.fake.requests[0].authorization).toBe('Bearer test-key');
    expect(userCompany('Bob Martin')).toBe('EPAM');
  });

  it('waveloop status and list: read a finished run without any worker running', async () => {
    // cli-find-bob ran on the queue no worker polls, and its in-process worker has stopped.
    const status = await waveloop(['status', 'cli-find-bob'], solo);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('Run:        cli-find-bob\n');
    expect(status.stdout).toContain('Status:     completed');
    expect(status.stdout).toContain('Waves:      3, 3 tool calls');

    // Every test file shares the server: its newest 20 runs need not include this one.
    const list = await waveloop(['list', '--limit', '1000'], env);
    expect(list.stdout).toMatch(/^ID\s+STATUS\s+STARTED\s+BY\s+KIND\s+PRIORITY\s+GOAL\n/);
    expect(list.stdout).toMatch(
      /\ncli-find-bob\s+completed\s+\S+Z\s+\S+\s+agent run\s+–\s+Find Bob and update his company to EPAM\n/,
    );
  });

  it('waveloop run --chat: each answer waits for the next message; send continues the conversation, end finishes it', async () => {
    cli.fake.script({ content: 'Hello! Ask me anything.' }, (req) => ({
      content: `You asked: ${req.messages.at(-1)!.content}`,
    }));
    const running = waveloopLive(['run', '--chat', '--tools', 'calculator', '--id', 'cli-chat', 'Say hello'], env);
    await eventually(running.stdout, (out) =>
      out.includes('Hello! Ask me anything.\n  reply with: waveloop send cli-chat "…"   (or: waveloop end cli-chat)'),
    );
    const sent = await waveloop(['send', 'cli-chat', 'What is 6*7?'], env);
    expect(sent).toMatchObject({ code: 0, stdout: 'You asked: What is 6*7?\n' });
    await eventually(running.stdout, (out) =>
      out.includes('You asked: What is 6*7?\n  reply with: waveloop send cli-chat'),
    );
    expect((await waveloop(['end', 'cli-chat'], env)).code).toBe(0);
    const out = await running.done;

    expect(out.code).toBe(0);
    expect(out.stderr).not.toContain('running one in this process');
    cli.fake.assertDone();
    expect(out.stdout).toContain('Answer (2 iterations, 220 tokens):\nYou asked: What is 6*7?');
  });

  it('at a terminal, waveloop run asks right there: a question is answered, a denied call gets the reason, an approved one runs; show prints the waves and the transcript', async () => {
    cli.fake.script(
      { toolCalls: [{ name: 'ask_question', args: { question: 'Which company?' } }] },
      (req) => ({ toolCalls: [{ name: 'update_user', args: { id: 2, company: toolMessages(req)[0] } }] }),
      (req) => ({ toolCalls: [{ name: 'update_user', args: { id: 2, company: `${toolMessages(req)[0]} Ltd` } }] }),
      (req) => ({ content: `Done: ${toolMessages(req).slice(1).join(' / ')}` }),
    );
    const terminal = waveloopAtTerminal(['run', '--agent', 'back-office', '--id', 'cli-terminal', 'Move user 2'], env);
    await eventuallyMatches(terminal.output, /Question: Which company\?\nanswer \(an empty line leaves it open\)> $/);
    terminal.type('Initech');
    await eventuallyMatches(terminal.output, /Approve wave 2 · update_user\(id=2, company=Initech\)\? \[y\/N\] $/);
    terminal.type('n');
    await eventuallyMatches(terminal.output, /Reason \(the model reads it\): $/);
    terminal.type('add the legal form');
    await eventuallyMatches(terminal.output, /Approve wave 3 · update_user\(id=2, company=Initech Ltd\)\? \[y\/N\] $/);
    terminal.type('y');
    const out = await terminal.done;

    expect(out.code, out.output).toBe(0);
    cli.fake.assertDone();
    // What the model was told: the answer typed, the denial with its reason, then the updated user.
    expect(toolMessages(cli.fake.requests[3])).toEqual([
      'Initech',
      'Error: denied: add the legal form',
      expect.stringContaining('"company":"Initech Ltd"'),
    ]);
    expect(out.output).not.toContain('decide with: waveloop approve');
    expect(out.output).toMatch(/Answer \(4 iterations, \d+ tokens\):\nDone: Error: denied: add the legal form \/ \{/);
    expect(userCompany(2)).toBe('Initech Ltd');

    const show = await waveloop(['show', 'cli-terminal'], env);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain('Run cli-terminal (completed)');
    expect(show.stdout).toMatch(
      /Waves \(wave n: iteration n's tool calls\):\n  wave 1 · ask_question\(question=Which company\?\) → Initech\n  wave 2 · update_user\(id=2, company=Initech\) ✗ denied: add the legal form \(denied by \S+\)\n  wave 3 · update_user/,
    );
    expect(show.stdout).toMatch(
      /Transcript:\n  \[system\] [\s\S]*?\n  \[user\] Move user 2\n  \[assistant\] → ask_question\(\{"question":"Which company\?"\}\)\n  \[tool \S+\] Initech\n/,
    );
    expect(show.stdout).toContain('Answer (4 iterations');
  });

  it('colour: at a terminal, waves, errors and statuses are coloured; with NO_COLOR, or piped, the output is plain', async () => {
    const SGR = /\x1b\[\d+(;\d+)*m/;
    const script = () =>
      cli.fake.script(
        {
          toolCalls: [
            { name: 'calculator', args: { expression: '6*7' } },
            { name: 'no_such_tool', args: {}, unoffered: true },
          ],
        },
        { content: 'It is 42.' },
      );
    const terminal = { ...env, TERM: 'xterm-256color' };

    script();
    const coloured = await waveloopAtTerminal(['run', '--id', 'cli-colour', 'Compute 6*7'], terminal).done;
    expect(coloured.code, coloured.output).toBe(0);
    expect(coloured.raw).toContain('\x1b[36mwave 1 · calculator(expression=6*7)\x1b[39m \x1b[32m→\x1b[39m 42');
    expect(coloured.raw).toContain('\x1b[31m✗ Unknown tool "no_such_tool".');
    expect(coloured.raw).toContain('\x1b[32mAnswer (2 iterations');
    const status = await waveloopAtTerminal(['status', 'cli-colour'], terminal).done;
    expect(status.raw).toMatch(/Status: +\x1b\[32mcompleted\x1b\[39m/);

    script();
    const noColor = await waveloopAtTerminal(['run', '--id', 'cli-no-colour', 'Compute 6*7'], {
      ...terminal,
      NO_COLOR: '1',
    }).done;
    expect(noColor.code, noColor.output).toBe(0);
    expect(noColor.raw).toContain('wave 1 · calculator(expression=6*7) → 42');
    expect(noColor.raw).not.toMatch(SGR);

    const piped = await waveloop(['show', 'cli-colour'], { ...terminal, FORCE_COLOR: undefined });
    expect(piped.stdout).toContain('wave 1 · calculator(expression=6*7) → 42');
    expect(piped.stdout).not.toMatch(SGR);
  });

  it('waveloop run --json: prints the result object; a run that hits its limit exits non-zero', async () => {
    cli.fake.script({ content: 'Working on it', toolCalls: [{ name: 'calculator', args: { expression: '2+2' } }] });
    const out = await waveloop(['run', '--json', '--max-iterations', '1', 'Add two and two forever'], env);

    expect(out.code).toBe(1);
    const result = JSON.parse(out.stdout);
    expect(result).toMatchObject({ status: 'max_iterations', iterations: 1, answer: 'Working on it' });
    expect(result.waves[0].calls[0]).toMatchObject({ tool: 'calculator', ok: true, result: '4' });
  });

  it('waveloop run: a run that fails prints its typed reason and exits 1', async () => {
    cli.fake.script({ status: 401, message: 'Incorrect API key provided' });
    const out = await waveloop(['run', 'Say hello'], env);

    expect(out.code).toBe(1);
    expect(out.stderr).toContain(
      `Run failed (ModelAuthentication): Model endpoint ${cli.fake.baseURL} answered 401: the endpoint rejected the API key; check OPENAI_API_KEY`,
    );
  });

  it('waveloop run: without a model endpoint it says what to set and starts nothing', async () => {
    const bareDir = fs.mkdtempSync(path.join(os.tmpdir(), 'waveloop-cli-bare-'));
    const out = await waveloop(['run', 'Find Bob'], { WAVELOOP_DATA_DIR: bareDir });

    expect(out.code).toBe(2);
    expect(out.stderr).toContain('No model endpoint is configured');
    expect(out.stderr).toContain('OPENAI_API_KEY');
    expect(out.stderr).toContain('OPENAI_BASE_URL');
    expect(fs.readdirSync(bareDir)).toEqual([]);
    fs.rmSync(bareDir, { recursive: true, force: true });
  });

  it('waveloop run: bad options are refused before anything starts', async () => {
    const empty = await waveloop(['run', '   '], env);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('Invalid input: goal: goal must be a non-empty string');

    // Commander's own errors too exit 2, the status of a mistake in the command line.
    const limit = await waveloop(['run', '--max-iterations', '-3', 'x'], env);
    expect(limit.code).toBe(2);
    expect(limit.stderr).toContain('maxIterations must be a whole number from 1 to 10,000');
    const unknown = await waveloop(['run', '--no-such-option', 'x'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("error: unknown option '--no-such-option'");

    // Flow control's values out of range: refused with what they must be, before a run starts.
    const priority = await waveloop(['run', '--priority', '9', '--fairness-key', 'k'.repeat(65), 'x'], env);
    expect(priority.code).toBe(2);
    expect(priority.stderr).toContain('priority must be a whole number from 1 to 5');
    expect(priority.stderr).toContain('fairnessKey must be at most 64 bytes (UTF-8)');
    const width = await waveloop(['run', '--max-parallel-tools', '0', 'x'], env);
    expect(width.code).toBe(2);
    expect(width.stderr).toContain('maxParallelTools must be a whole number from 1 to 1,000');
  });

  it('waveloop cancel: a detached run waiting on a slow model is cancelled and says so', async () => {
    cli.fake.script({ content: 'too late', delayMs: 20_000 });
    const started = await waveloop(['run', '--detach', '--json', '--id', 'cli-cancel-me', 'Take your time'], env);
    expect(started.code).toBe(0);
    expect(JSON.parse(started.stdout)).toMatchObject({ workflowId: 'cli-cancel-me' });
    // Once the model call is in flight, cancel.
    await eventually(
      () => cli.fake.inFlight,
      (n) => n === 1,
    );

    const cancel = await waveloop(['cancel', 'cli-cancel-me'], env);
    expect(cancel.code).toBe(0);
    expect(cancel.stdout).toContain('Cancellation of cli-cancel-me requested.');

    // The run ends gracefully: completed as a workflow, with status cancelled and what it had.
    await cli.client.runs.result('cli-cancel-me');
    const status = await waveloop(['status', 'cli-cancel-me'], env);
    expect(status.stdout).toContain('Run:        cli-cancel-me\n');
    expect(status.stdout).toContain('Status:     cancelled');
    // One status: not Temporal's COMPLETED beside the run's own.
    expect(status.stdout).not.toContain('COMPLETED');
  });

  it('waveloop answer: answers the question a detached run waits on; status shows it first; an empty answer is refused', async () => {
    cli.fake.script({ toolCalls: [{ name: 'ask_question', args: { question: 'Which company?' } }] }, (req) => ({
      content: `Company set to ${req.messages[req.messages.length - 1].content}.`,
    }));
    await waveloop(['run', '--detach', '--id', 'cli-question', 'Set the company'], env);
    await waitForProgress(
      cli.h.client,
      cli.client.runs.handle('cli-question'),
      (p) => p.status === 'waiting_for_input',
    );
    const status = await waveloop(['status', 'cli-question'], env);
    expect(status.stdout).toContain('Status:     waiting_for_input');
    expect(status.stdout).toMatch(/Question:   Which company\? \(call \S+\)/);

    const empty = await waveloop(['answer', 'cli-question', ' '], env);
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain('The answer must be a non-empty string.');

    const answer = await waveloop(['answer', 'cli-question', 'EPAM'], env);
    expect(answer.code).toBe(0);
    expect(answer.stdout).toContain('Answered "Which company?"');
    expect(await cli.client.runs.result('cli-question')).toMatchObject({
      status: 'completed',
      answer: 'Company set to EPAM.',
    });
    cli.fake.assertDone();
  });

  it('a question survives a worker crash: list --status finds the run, answer goes to a new worker, follow shows the end', async () => {
    cli.fake.script({ toolCalls: [{ name: 'ask_question', args: { question: 'Which region?' } }] }, (req) => ({
      content: `Region ${req.messages.at(-1)!.content} it is.`,
    }));
    // A task queue of its own, served first by a `waveloop worker` process, which dies (SIGKILL).
    const queue = `${cli.taskQueue}-crash`;
    const crashEnv = { ...env, WAVELOOP_TASK_QUEUE: queue };
    const first = spawn(process.execPath, [CLI, 'worker'], { cwd: ROOT, env: { PATH: process.env.PATH, ...crashEnv } });
    let firstSaid = '';
    first.stderr.on('data', (d) => (firstSaid += d));
    const firstClosed = new Promise((resolve) => first.on('close', resolve));
    try {
      await waveloop(['run', '--detach', '--id', 'cli-crash-question', 'Pick a region'], crashEnv);
      // The run's search attributes say it waits for input once the server has indexed them.
      await eventually(
        () => cli.client.runs.list({ limit: 100, status: 'waiting_for_input' }),
        (runs) => runs.some((run) => run.workflowId === 'cli-crash-question'),
      );
      const waiting = await waveloop(['list', '--status', 'waiting_for_input'], crashEnv);
      expect(waiting.stdout).toMatch(
        /cli-crash-question\s+waiting_for_input\s+\S+\s+\S+\s+agent run\s+–\s+Pick a region/,
      );
      expect(firstSaid).toContain(
        `Worker polling task queue "${queue}" on ${env.TEMPORAL_ADDRESS} (namespace default) with the demo tools. Ctrl-C stops it.`,
      );
    } finally {
      first.kill('SIGKILL');
      await firstClosed;
    }
    // Another worker takes over the queue (at once: the dead worker's sticky queue is let go
    // instead of waiting for its timeout).
    await cli.h.client.workflowService.resetStickyTaskQueue({
      namespace: 'default',
      execution: { workflowId: 'cli-crash-question' },
    });
    await cli.serve(queue);

    const answer = await waveloop(['answer', 'cli-crash-question', 'eu-west'], crashEnv);
    expect(answer.stderr).toBe('');
    expect(answer.stdout).toContain('Answered "Which region?".');
    const follow = await waveloop(['follow', 'cli-crash-question'], crashEnv);
    expect(follow.code).toBe(0);
    expect(follow.stdout).toMatch(/wave 1 · ask_question\(question=Which region\?\) → eu-west/);
    expect(follow.stdout).toContain('Region eu-west it is.');
    cli.fake.assertDone();
  });

  it('examples/start-run: a script starts a run with the client API and prints the result', async () => {
    cli.fake.script({ content: 'Hello from the example.' });
    const out = await waveloop(['Say hello'], env, { script: path.join(ROOT, 'dist', 'examples', 'start-run.js') });
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^Started waveloop-/);
    expect(out.stdout).toContain('completed: Hello from the example.');
  });
});
