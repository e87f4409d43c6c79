import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, ROOT, waveloop, waveloopAtTerminal, waveloopLive, waitForText, cliFixture } from '../support/cli';
import { toolMessages, type FakeModel } from '../support/fake-model';

describe('waveloop CLI', () => {
  let fake: FakeModel;
  let dataDir: string;
  let env: Record<string, string>;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    ({ fake, dataDir, env, stop } = await cliFixture('cli'));
  });
  afterAll(() => stop());

  it('waveloop run: prints each wave live and the answer, runs a worker in-process, changes the database', async () => {
    fake.script(
      { toolCalls: [{ name: 'search_users', args: { name: 'Bob' } }] },
      (req) => ({ toolCalls: [{ name: 'get_user', args: { id: JSON.parse(toolMessages(req)[0])[0].id } }] }),
      (req) => ({ toolCalls: [{ name: 'update_user', args: { id: JSON.parse(toolMessages(req)[1]).id, company: 'EPAM' } }] }),
      { content: 'Bob Martin now works at EPAM.' },
    );
    const running = waveloop(['run', '--agent', 'back-office', '--id', 'cli-find-bob', 'Find Bob and update his company to EPAM'], env);
    // update_user waits for approval: a person approves it from another terminal.
    let status = '';
    for (let i = 0; i < 100 && !status.includes('Approval:'); i++) status = (await waveloop(['status', 'cli-find-bob'], env)).stdout;
    expect(status).toContain('Status:     waiting_for_approval');
    const callId = /Approval:   wave 3 · update_user\(id=\d+, company=EPAM\) \(call (\S+)\)/.exec(status)![1];
    const approved = await waveloop(['approve', 'cli-find-bob', callId], env);
    expect(approved.stdout).toContain(`Approved update_user (call ${callId}).`);
    const out = await running;

    expect(out.stderr).toContain('running one in this process');
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('Run cli-find-bob started');
    expect(out.stdout).toMatch(/wave 1 · search_users\(name=Bob\) → \[\{"id":\d+,"name":"Bob Martin"/);
    expect(out.stdout).toMatch(/wave 2 · get_user\(id=\d+\) → /);
    expect(out.stdout).toMatch(/Approval needed: wave 3 · update_user\(id=\d+, company=EPAM\)\n  decide with: waveloop approve cli-find-bob \S+/);
    expect(out.stdout).toMatch(/wave 3 · update_user\(id=\d+, company=EPAM\) → .*"company":"EPAM"/);
    expect(out.stdout).toContain('Answer (4 iterations, 440 tokens):\nBob Martin now works at EPAM.');
    fake.assertDone();
    // The model was the one configured in the environment, with its key.
    expect(fake.requests[0].model).toBe('fake-model');
    expect(fake.requests[0].authorization).toBe('Bearer test-key');

    const db = new Database(path.join(dataDir, 'demo.db'), { readonly: true });
    const bob = db.prepare("SELECT company FROM users WHERE name = 'Bob Martin'").get() as { company: string };
    db.close();
    expect(bob.company).toBe('EPAM');
  });

  it('waveloop run --chat: each answer waits for the next message; send continues the conversation, end finishes it', async () => {
    fake.script({ content: 'Hello! Ask me anything.' }, (req) => ({ content: `You asked: ${req.messages.at(-1)!.content}` }));
    const running = waveloopLive(['run', '--chat', '--tools', 'calculator', '--id', 'cli-chat', 'Say hello'], env);
    const waitFor = async (text: string) => {
      for (let i = 0; i < 300 && !running.stdout().includes(text); i++) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(running.stdout()).toContain(text);
    };
    await waitFor('Hello! Ask me anything.\n  reply with: waveloop send cli-chat "…"   (or: waveloop end cli-chat)');
    expect((await waveloop(['send', 'cli-chat', 'What is 6*7?'], env)).code).toBe(0);
    await waitFor('You asked: What is 6*7?\n  reply with: waveloop send cli-chat');
    expect((await waveloop(['end', 'cli-chat'], env)).code).toBe(0);
    const out = await running.done;

    expect(out.code).toBe(0);
    fake.assertDone();
    expect(out.stdout).toContain('Answer (2 iterations, 220 tokens):\nYou asked: What is 6*7?');
  });

  it('at a terminal, waveloop run asks right there: a question is answered, a denied call gets the reason, an approved one runs', async () => {
    fake.script(
      { toolCalls: [{ name: 'ask_question', args: { question: 'Which company?' } }] },
      (req) => ({ toolCalls: [{ name: 'update_user', args: { id: 2, company: toolMessages(req)[0] } }] }),
      (req) => ({ toolCalls: [{ name: 'update_user', args: { id: 2, company: `${toolMessages(req)[0]} Ltd` } }] }),
      (req) => ({ content: `Done: ${toolMessages(req).slice(1).join(' / ')}` }),
    );
    const terminal = waveloopAtTerminal(['run', '--agent', 'back-office', '--id', 'cli-terminal', 'Move user 2'], env);
    expect(await waitForText(terminal.output, /Question: Which company\?\nanswer \(an empty line leaves it open\)> $/), terminal.output()).toBeDefined();
    terminal.type('Initech');
    expect(await waitForText(terminal.output, /Approve wave 2 · update_user\(id=2, company=Initech\)\? \[y\/N\] $/), terminal.output()).toBeDefined();
    terminal.type('n');
    expect(await waitForText(terminal.output, /Reason \(the model reads it\): $/)).toBeDefined();
    terminal.type('add the legal form');
    expect(await waitForText(terminal.output, /Approve wave 3 · update_user\(id=2, company=Initech Ltd\)\? \[y\/N\] $/), terminal.output()).toBeDefined();
    terminal.type('y');
    const out = await terminal.done;

    expect(out.code, out.output).toBe(0);
    fake.assertDone();
    // What the model was told: the answer typed, the denial with its reason, then the updated user.
    expect(toolMessages(fake.requests[3])).toEqual(['Initech', 'Error: denied: add the legal form', expect.stringContaining('"company":"Initech Ltd"')]);
    expect(out.output).not.toContain('decide with: waveloop approve');
    expect(out.output).toMatch(/Answer \(4 iterations, \d+ tokens\):\nDone: Error: denied: add the legal form \/ \{/);
    const db = new Database(path.join(dataDir, 'demo.db'), { readonly: true });
    const user = db.prepare('SELECT company FROM users WHERE id = 2').get() as { company: string };
    db.close();
    expect(user.company).toBe('Initech Ltd');
  });

  it('waveloop status and show: read a finished run without any worker running', async () => {
    const status = await waveloop(['status', 'cli-find-bob'], env);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('Run:        cli-find-bob (COMPLETED)');
    expect(status.stdout).toContain('Status:     completed');
    expect(status.stdout).toContain('Waves:      3, 3 tool calls');

    const show = await waveloop(['show', 'cli-find-bob'], env);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/Waves:\n  wave 1 · search_users\(name=Bob\)/);
    expect(show.stdout).toContain('Bob Martin now works at EPAM.');

    // Every test file shares the server: its newest 20 runs need not include this one.
    const list = await waveloop(['list', '--limit', '1000'], env);
    expect(list.stdout).toMatch(/cli-find-bob\s+COMPLETED/);
  });

  it('waveloop run --json: prints the result object; a run that hits its limit exits non-zero', async () => {
    fake.script({ content: 'Working on it', toolCalls: [{ name: 'calculator', args: { expression: '2+2' } }] });
    const out = await waveloop(['run', '--json', '--max-iterations', '1', 'Add two and two forever'], env);

    expect(out.code).toBe(1);
    const result = JSON.parse(out.stdout);
    expect(result).toMatchObject({ status: 'max_iterations', iterations: 1, answer: 'Working on it' });
    expect(result.waves[0].calls[0]).toMatchObject({ tool: 'calculator', ok: true, result: '4' });
  });

  it('waveloop run: a run that fails prints its typed reason and exits 1', async () => {
    fake.script({ status: 401, message: 'Incorrect API key provided' });
    const out = await waveloop(['run', 'Say hello'], env);

    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/Run failed \(ModelAuthentication\): Model endpoint answered 401.*OPENAI_API_KEY/);
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

    const limit = await waveloop(['run', '--max-iterations', '-3', 'x'], env);
    expect(limit.code).not.toBe(0);
    expect(limit.stderr).toContain('must be a positive whole number');
  });

  it('waveloop cancel: a detached run waiting on a slow model is cancelled and says so', async () => {
    fake.script({ content: 'too late', delayMs: 20_000 });
    const worker = spawn(process.execPath, [CLI, 'worker'], { cwd: ROOT, env: { PATH: process.env.PATH, ...env } });
    try {
      const started = await waveloop(['run', '--detach', '--json', '--id', 'cli-cancel-me', 'Take your time'], env);
      expect(started.code).toBe(0);
      expect(JSON.parse(started.stdout)).toMatchObject({ workflowId: 'cli-cancel-me' });
      // Wait until the model call is in flight, then cancel.
      for (let i = 0; i < 100 && fake.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
      expect(fake.requests).toHaveLength(1);

      const cancel = await waveloop(['cancel', 'cli-cancel-me'], env);
      expect(cancel.code).toBe(0);
      expect(cancel.stdout).toContain('Cancellation of cli-cancel-me requested.');

      let status = '';
      for (let i = 0; i < 50 && !status.includes('COMPLETED'); i++) {
        status = (await waveloop(['status', 'cli-cancel-me'], env)).stdout;
      }
      // The run ends gracefully: completed as a workflow, with status cancelled and what it had.
      expect(status).toContain('Run:        cli-cancel-me (COMPLETED)');
      expect(status).toContain('Status:     cancelled');
    } finally {
      worker.kill('SIGINT');
      await new Promise((resolve) => worker.on('close', resolve));
    }
  });

  it('waveloop answer: answers the question a detached run waits on; status shows it first', async () => {
    fake.script({ toolCalls: [{ name: 'ask_question', args: { question: 'Which company?' } }] }, (req) => ({
      content: `Company set to ${req.messages[req.messages.length - 1].content}.`,
    }));
    const worker = spawn(process.execPath, [CLI, 'worker'], { cwd: ROOT, env: { PATH: process.env.PATH, ...env } });
    try {
      await waveloop(['run', '--detach', '--id', 'cli-question', 'Set the company'], env);
      let status = '';
      for (let i = 0; i < 50 && !status.includes('waiting_for_input'); i++) {
        status = (await waveloop(['status', 'cli-question'], env)).stdout;
      }
      expect(status).toContain('Status:     waiting_for_input');
      expect(status).toMatch(/Question:   Which company\? \(call \S+\)/);

      const empty = await waveloop(['answer', 'cli-question', ' '], env);
      expect(empty.code).toBe(1);
      expect(empty.stderr).toContain('The answer must be a non-empty string.');

      const answer = await waveloop(['answer', 'cli-question', 'EPAM'], env);
      expect(answer.code).toBe(0);
      expect(answer.stdout).toContain('Answered "Which company?"');

      const late = await waveloop(['answer', 'cli-question', 'again'], env);
      expect(late.code).toBe(1);
    } finally {
      worker.kill('SIGINT');
      await new Promise((resolve) => worker.on('close', resolve));
    }
  });

  it('a question survives a worker crash: list --status finds the run, answer goes to a new worker, follow shows the end', async () => {
    fake.script({ toolCalls: [{ name: 'ask_question', args: { question: 'Which region?' } }] }, (req) => ({
      content: `Region ${req.messages.at(-1)!.content} it is.`,
    }));
    const first = spawn(process.execPath, [CLI, 'worker'], { cwd: ROOT, env: { PATH: process.env.PATH, ...env } });
    let second: ReturnType<typeof spawn> | undefined;
    try {
      await waveloop(['run', '--detach', '--id', 'cli-crash-question', 'Pick a region'], env);
      let waiting = '';
      for (let i = 0; i < 100 && !waiting.includes('cli-crash-question'); i++) {
        waiting = (await waveloop(['list', '--status', 'waiting_for_input'], env)).stdout;
      }
      expect(waiting).toMatch(/cli-crash-question\s+RUNNING/);

      first.kill('SIGKILL');
      await new Promise((resolve) => first.on('close', resolve));
      second = spawn(process.execPath, [CLI, 'worker'], { cwd: ROOT, env: { PATH: process.env.PATH, ...env } });

      const answer = await waveloop(['answer', 'cli-crash-question', 'eu-west'], env);
      expect(answer.stderr).toBe('');
      expect(answer.stdout).toContain('Answered "Which region?".');
      const follow = await waveloop(['follow', 'cli-crash-question'], env);
      expect(follow.code).toBe(0);
      expect(follow.stdout).toMatch(/wave 1 · ask_question\(question=Which region\?\) → eu-west/);
      expect(follow.stdout).toContain('Region eu-west it is.');
      fake.assertDone();
    } finally {
      first.kill('SIGKILL');
      second?.kill('SIGINT');
      if (second) await new Promise((resolve) => second!.on('close', resolve));
    }
  });

  it('examples/start-run: a script starts a run with the client API and prints the result', async () => {
    fake.script({ content: 'Hello from the example.' });
    const worker = spawn(process.execPath, [CLI, 'worker'], { cwd: ROOT, env: { PATH: process.env.PATH, ...env } });
    try {
      const out = await waveloop(['Say hello'], env, path.join(ROOT, 'dist', 'examples', 'start-run.js'));
      expect(out.code).toBe(0);
      expect(out.stdout).toMatch(/^Started waveloop-/);
      expect(out.stdout).toContain('completed: Hello from the example.');
    } finally {
      worker.kill('SIGINT');
      await new Promise((resolve) => worker.on('close', resolve));
    }
  });
});
