import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Worker } from '@temporalio/worker';
import { AUDIT_FILE } from '../../src/audit/open-store';
import { SqliteAuditStore } from '../../src/audit/sqlite-store';
import { WaveloopClient } from '../../src/client/waveloop-client';
import type { FakeModel } from './fake-model';
import { Harness } from './harness';
import { eventually } from './wait';

export const ROOT = path.join(__dirname, '..', '..');
export const CLI = path.join(ROOT, 'bin', 'waveloop.js');

export interface Exec {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a `waveloop` command line as a user would: with only PATH, HOME and `env` in its environment,
 * in the repository or in `cwd`. By default in this process (`main(argv, io)` of src/cli, its
 * output and environment its own), as a command that only prints costs no process start (most of a
 * command's CPU is loading modules); with `process: true`, or another built `script`, as a process
 * of the built CLI (`npm test` builds it first), for what only a process shows: its exit on a
 * signal, its own module loading (`NODE_OPTIONS` in `env` implies it), a worker the command starts
 * itself.
 */
export function waveloop(
  args: string[],
  env: Record<string, string | undefined>,
  { script, cwd, process: own = false }: { script?: string; cwd?: string; process?: boolean } = {},
): Promise<Exec> {
  // NODE_OPTIONS (a module preloaded, a clock set ahead) takes a process to apply.
  if (own || script || env.NODE_OPTIONS) return waveloopLive(args, env, { script, cwd }).done;
  return waveloopHere(args, { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, cwd ?? ROOT);
}

async function waveloopHere(args: string[], env: Record<string, string | undefined>, cwd: string): Promise<Exec> {
  const { main } = await import('../../src/cli/program');
  let stdout = '';
  let stderr = '';
  const code = await main(['node', 'waveloop', ...args], {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env,
    cwd,
    interactive: false,
  });
  return { code, stdout, stderr };
}

/**
 * `waveloop` for commands that print while they run: `stdout()` is what was printed so far; `kill`
 * sends the process a signal (Ctrl-C is SIGINT).
 */
export function waveloopLive(
  args: string[],
  env: Record<string, string | undefined>,
  { script, cwd = ROOT }: { script?: string; cwd?: string } = {},
): { stdout(): string; stderr(): string; kill(signal: NodeJS.Signals): void; done: Promise<Exec> } {
  let stdout = '';
  let stderr = '';
  const child = spawn(process.execPath, [script ?? CLI, ...args], {
    cwd,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
  });
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const done = new Promise<Exec>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  return { stdout: () => stdout, stderr: () => stderr, kill: (signal) => child.kill(signal), done };
}

/** What `waveloopLive` returns: a command running, its output so far, and how it ended. */
export type LiveCommand = ReturnType<typeof waveloopLive>;

/** `waveloop worker` as a process of its own (logging at INFO, in `cwd`), once it polls its task queue. */
export async function workerProcess(
  env: Record<string, string | undefined>,
  { cwd }: { cwd?: string } = {},
): Promise<LiveCommand> {
  const worker = waveloopLive(['worker'], { ...env, WAVELOOP_LOG_LEVEL: 'INFO' }, cwd ? { cwd } : {});
  // A minute and a half: on a loaded 2-core machine a worker's start (its config compiled, the
  // workflow bundle built) has taken longer than 20 s.
  await eventually(worker.stderr, (said) => said.includes('Worker polling'), {
    attempts: 900,
    problem: 'The worker never polled.',
  }).catch((err: Error) => {
    worker.kill('SIGKILL');
    throw err;
  });
  return worker;
}

/**
 * `waveloop serve --listen 127.0.0.1:0` as a process of its own (in `cwd`), once it listens: the
 * command and the address it printed.
 */
export async function serveProcess(
  env: Record<string, string | undefined>,
  { cwd }: { cwd?: string } = {},
): Promise<{ serve: LiveCommand; url: string }> {
  const serve = waveloopLive(['serve', '--listen', '127.0.0.1:0'], env, cwd ? { cwd } : {});
  const listening = /on (http:\/\/127\.0\.0\.1:\d+)\/api/;
  await eventually(serve.stdout, (printed) => listening.test(printed), {
    problem: 'waveloop serve did not start.',
  }).catch((err: Error) => {
    throw new Error(`${err.message}\n${serve.stderr()}`);
  });
  return { serve, url: listening.exec(serve.stdout())![1]! };
}

/**
 * `waveloop` at a terminal, as a person types at it: run under `script` (util-linux), so its stdin
 * and stdout are a pseudo-terminal (`TERM=dumb` unless `env` says otherwise). `output()` is
 * everything printed so far, stdout and stderr together as a terminal shows them (without colours
 * and carriage returns); `done` also has it `raw`, as printed; `type` sends a line, `press` keys as
 * they are (Ctrl-C is `\x03`).
 */
export function waveloopAtTerminal(
  args: string[],
  env: Record<string, string | undefined>,
): {
  output(): string;
  type(line: string): void;
  press(keys: string): void;
  /** Sends the waveloop process (not `script` around it) a signal. */
  kill(signal: NodeJS.Signals): void;
  done: Promise<{ code: number | null; output: string; raw: string }>;
} {
  let output = '';
  const command = [process.execPath, CLI, ...args].map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = spawn('script', ['--quiet', '--flush', '--return', '--command', command, '/dev/null'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, TERM: 'dumb', ...env },
  });
  const clean = (text: string) => text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const done = new Promise<{ code: number | null; output: string; raw: string }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output: clean(output), raw: output }));
  });
  const kill = (signal: NodeJS.Signals) => {
    for (const pid of descendants(child.pid!)) {
      const [program, script] = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (program === process.execPath && script === CLI) process.kill(pid, signal);
    }
  };
  return {
    output: () => clean(output),
    type: (line) => child.stdin.write(`${line}\r`),
    press: (keys) => child.stdin.write(keys),
    kill,
    done,
  };
}

/** The processes `pid` started, and theirs (Linux: from /proc). */
function descendants(pid: number): number[] {
  const children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  return children.flatMap((child) => [child, ...descendants(child)]);
}

export interface CliFixture {
  /** The harness behind it: its fake model, data directory, Temporal client and workers. */
  h: Harness;
  fake: FakeModel;
  dataDir: string;
  /** The environment that points the CLI at the fake model, the data directory and the tests' server, on `taskQueue`. */
  env: Record<string, string>;
  taskQueue: string;
  /** A waveloop client on `taskQueue`, as the CLI makes one (for waiting on runs the CLI started). */
  client: WaveloopClient;
  /** A worker in this process on `queue`, running until `stop()`, as `waveloop worker` would serve it (`stream`: as with WAVELOOP_STREAM). */
  serve(queue: string, options?: { stream?: boolean }): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A fake model, a temporary data directory and the environment that points the CLI at both and at
 * the tests' Temporal server, on a task queue of its own. With `worker` (the default) a worker in
 * this process serves that queue, as `waveloop worker` would (the demo tools over the same database,
 * the fake model), so a `waveloop run` finds a live worker and starts none of its own: one worker
 * for the whole file, not one bundling the workflow code in every command. A test of the
 * in-process worker uses another queue, which no worker polls. Call `stop()` when done.
 */
export async function cliFixture(name: string, { worker = true } = {}): Promise<CliFixture> {
  const h = await new Harness().start();
  const taskQueue = `${name}-${randomUUID()}`;
  const env = {
    TEMPORAL_ADDRESS: h.address,
    WAVELOOP_TASK_QUEUE: taskQueue,
    WAVELOOP_DATA_DIR: h.dataDir,
    OPENAI_BASE_URL: h.fake.baseURL,
    OPENAI_API_KEY: 'test-key',
    WAVELOOP_MODEL: 'fake-model',
  };
  const workers: Array<{ worker: Worker; running: Promise<void> }> = [];
  // The fixture's workers keep the audit trail the CLI's workers keep, in the same file, as every
  // worker of a deployment does: a run one of them started may go on in the other.
  const audit = new SqliteAuditStore(path.join(h.dataDir, AUDIT_FILE));
  const serve = async (queue: string, options: { stream?: boolean } = {}) => {
    const { worker } = await h.worker({ taskQueue: queue, audit, ...options });
    workers.push({ worker, running: worker.run() });
  };
  if (worker) await serve(taskQueue);
  return {
    h,
    fake: h.fake,
    dataDir: h.dataDir,
    env,
    taskQueue,
    client: new WaveloopClient(h.client, taskQueue),
    serve,
    async stop() {
      for (const { worker } of workers) if (worker.getState() === 'RUNNING') worker.shutdown();
      await Promise.all(workers.map(({ running }) => running));
      await audit.close();
      await h.stop();
    },
  };
}
