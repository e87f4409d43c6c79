import { spawn } from 'node:child_process';
import * as path from 'node:path';

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
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script ?? CLI, ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
