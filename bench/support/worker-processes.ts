import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';

/**
 * Starts a waveloop worker in a process of its own (`bench/worker-process.ts`, its arguments);
 * resolves once it polls, with when it was spawned and when it was ready.
 */
export function startWorkerProcess(
  args: string[],
): Promise<{ child: ChildProcess; spawnedAt: number; readyAt: number }> {
  const spawnedAt = Date.now();
  const child = spawn(process.execPath, [path.join(__dirname, '..', 'worker-process.js'), ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve({ child, spawnedAt, readyAt: Date.now() });
    });
    child.once('exit', (code) => reject(new Error(`the worker process exited with ${code} before it was ready`)));
  });
}
