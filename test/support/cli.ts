import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { inject } from 'vitest';
import { FakeModel } from './fake-model';

export const ROOT = path.join(__dirname, '..', '..');
export const CLI = path.join(ROOT, 'bin', 'waveloop.js');

export interface Exec {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built CLI (`npm test` builds it first), or another built `script`, as a user would:
 * with only PATH, HOME and `env` in its environment.
 */
export function waveloop(args: string[], env: Record<string, string | undefined>, script?: string): Promise<Exec> {
  return waveloopLive(args, env, script).done;
}

/** `waveloop` for commands that print while they run: `stdout()` is what was printed so far. */
export function waveloopLive(args: string[], env: Record<string, string | undefined>, script?: string): { stdout(): string; stderr(): string; done: Promise<Exec> } {
  let stdout = '';
  let stderr = '';
  const done = new Promise<Exec>((resolve, reject) => {
    const child = spawn(process.execPath, [script ?? CLI, ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    });
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  return { stdout: () => stdout, stderr: () => stderr, done };
}

/**
 * `waveloop` at a terminal, as a person types at it: run under `script` (util-linux), so its stdin
 * and stdout are a pseudo-terminal. `output()` is everything printed so far, stdout and stderr
 * together as a terminal shows them (without colours and carriage returns); `type` sends a line.
 */
export function waveloopAtTerminal(args: string[], env: Record<string, string | undefined>): { output(): string; type(line: string): void; done: Promise<{ code: number | null; output: string }> } {
  let output = '';
  const command = [process.execPath, CLI, ...args].map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = spawn('script', ['--quiet', '--flush', '--return', '--command', command, '/dev/null'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, TERM: 'dumb', ...env },
  });
  const clean = (text: string) => text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const done = new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output: clean(output) }));
  });
  return { output: () => clean(output), type: (line) => child.stdin.write(`${line}\r`), done };
}

/** Waits until `read()` matches `pattern` (for up to 30 s); the match, or undefined. */
export async function waitForText(read: () => string, pattern: RegExp): Promise<RegExpExecArray | undefined> {
  for (let i = 0; i < 300; i++) {
    const match = pattern.exec(read());
    if (match) return match;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return undefined;
}

/**
 * A fake model, a temporary data directory and the environment that points the CLI at both and at
 * the tests' Temporal server, on a task queue of its own. Call `stop()` when done.
 */
export async function cliFixture(name: string): Promise<{ fake: FakeModel; dataDir: string; env: Record<string, string>; stop(): Promise<void> }> {
  const fake = await new FakeModel().start();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `waveloop-${name}-`));
  const env = {
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    WAVELOOP_TASK_QUEUE: `${name}-${randomUUID()}`,
    WAVELOOP_DATA_DIR: dataDir,
    OPENAI_BASE_URL: fake.baseURL,
    OPENAI_API_KEY: 'test-key',
    WAVELOOP_MODEL: 'fake-model',
  };
  return {
    fake,
    dataDir,
    env,
    async stop() {
      await fake.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
