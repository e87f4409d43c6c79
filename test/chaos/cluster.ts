import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { isServerUp } from '../../src/server/address';
import { ensureEmbeddedServer, stopEmbeddedServer } from '../../src/server/embedded-server';
import { SERVER_PID_FILE } from '../../src/server/files';
import { eventually } from '../support/wait';

const WORKER_SCRIPT = path.join(__dirname, 'worker-process.mjs');

/**
 * Distinct free loopback ports below the ephemeral range (32768+ on Linux). The server's port must
 * not be one the OS may hand out as a source port: while the server restarts, the workers reconnect
 * in a tight loop, and a connect whose source port equals its destination port connects to itself
 * and squats on the port.
 */
export async function freePorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < count) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (!ports.includes(port) && (await canListen(port))) ports.push(port);
  }
  return ports;
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** What worker `pid` did with tool call `key` (its idempotency key, `<workflowId>/<toolCallId>`), as its tool logged it. */
export interface ToolLogLine {
  /** `start` and `end` of an execution of chaos_step or update_user; `effect` once update_user committed. */
  event: 'start' | 'effect' | 'end';
  pid: number;
  key: string;
}

/** The tool log the worker processes write in `dataDir` (tool-executions.log), in order; empty before any tool ran. */
export function readToolLog(dataDir: string): ToolLogLine[] {
  const log = path.join(dataDir, 'tool-executions.log');
  if (!fs.existsSync(log)) return [];
  return fs
    .readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [event, pid, key] = line.split(' ');
      return { event: event as ToolLogLine['event'], pid: Number(pid), key };
    });
}

interface WorkerProcess {
  child: ChildProcess;
  pid: number;
  ready: boolean;
  killed: boolean;
}

/**
 * Keeps `size` worker processes (test/chaos/worker-process.mjs) alive: `killOne` SIGKILLs one and a
 * replacement starts at once (none with `replaceKilled: false`, so the survivors carry on alone); a
 * worker that dies by itself (say, while the server restarts) is replaced after a short pause and
 * counted in `unexpectedExits`.
 */
export class WorkerPool {
  readonly workers = new Set<WorkerProcess>();
  /** Milliseconds from spawn to polling, per worker that got there. */
  readonly startupMs: number[] = [];
  kills = 0;
  spawned = 0;
  unexpectedExits = 0;
  lastErrors: string[] = [];
  private stopping = false;

  constructor(
    private readonly size: number,
    private readonly env: Record<string, string>,
    private readonly options: { replaceKilled?: boolean } = {},
  ) {}

  start(): void {
    while (this.workers.size < this.size) this.spawn();
  }

  /** The pids of the workers that are polling (started and not killed). */
  readyPids(): number[] {
    return [...this.workers].filter((w) => w.ready && !w.killed).map((w) => w.pid);
  }

  /** SIGKILLs the worker that has polled longest and returns its pid; none while every worker is still starting. */
  killOne(): number | undefined {
    const victim = [...this.workers].find((w) => w.ready && !w.killed);
    if (!victim) return undefined;
    victim.killed = true;
    victim.child.kill('SIGKILL');
    this.kills += 1;
    return victim.pid;
  }

  /** SIGKILLs the worker with this pid, if it is one of ours and alive. */
  kill(pid: number): boolean {
    const victim = [...this.workers].find((w) => w.pid === pid && !w.killed);
    if (!victim) return false;
    victim.killed = true;
    victim.child.kill('SIGKILL');
    this.kills += 1;
    return true;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(
      [...this.workers].map(
        (w) =>
          new Promise<void>((resolve) => {
            if (w.child.exitCode !== null || w.child.signalCode !== null) return resolve();
            w.child.once('exit', () => resolve());
            w.child.kill('SIGKILL');
          }),
      ),
    );
  }

  private spawn(): void {
    const child = spawn(process.execPath, [WORKER_SCRIPT], {
      env: { ...process.env, ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const spawnedAt = Date.now();
    const worker: WorkerProcess = { child, pid: child.pid!, ready: false, killed: false };
    this.spawned += 1;
    this.workers.add(worker);
    child.stdout!.on('data', (data: Buffer) => {
      if (!worker.ready && data.toString().includes('ready')) {
        worker.ready = true;
        this.startupMs.push(Date.now() - spawnedAt);
      }
    });
    let stderr = '';
    child.stderr!.on('data', (data: Buffer) => (stderr = (stderr + data.toString()).slice(-2000)));
    child.once('exit', () => {
      this.workers.delete(worker);
      if (this.stopping) return;
      if (!worker.killed) {
        this.unexpectedExits += 1;
        if (stderr.trim()) this.lastErrors = [...this.lastErrors, stderr.trim()].slice(-3);
        setTimeout(() => !this.stopping && this.start(), 500);
      } else if (this.options.replaceKilled ?? true) {
        this.start();
      }
    });
  }
}

/**
 * Temporal slows the retries of a workflow task that keeps failing or timing out: past its third
 * attempt, each attempt's timeout grows by 5 s × 2^n, up to 10 minutes. Meant for a worker in a crash
 * loop, it punishes the crash matrix, which kills a worker every one to three seconds: a run whose
 * workflow tasks happened to land on dying workers reached its 7th attempt (a 50 s timeout), and one
 * more lost task would have it wait minutes after the kills have ended. The matrix tests waveloop's
 * recovery, not that policy, so its server caps the added time at 10 s.
 */
const CHAOS_DYNAMIC_CONFIG = { 'history.workflowTaskRetryMaxInterval': '10s' };

/** The embedded Temporal server of the crash matrix, on its own ports and data directory. */
export class ChaosServer {
  restarts = 0;

  constructor(
    readonly dataDir: string,
    readonly address: string,
    private readonly uiPort: number,
  ) {}

  async start(): Promise<void> {
    // A server being stopped may still answer for a moment: start the next one once it is down (or after 50 reads).
    await eventually(
      () => isServerUp(this.address, 200),
      (up) => !up,
      { attempts: 50 },
    ).catch(() => undefined);
    await ensureEmbeddedServer({
      dataDir: this.dataDir,
      address: this.address,
      uiPort: this.uiPort,
      readyTimeoutMs: 60_000,
      dynamicConfig: CHAOS_DYNAMIC_CONFIG,
    });
  }

  /** Stops the server (SIGKILL when `hard`, else `stopEmbeddedServer`'s SIGTERM) and starts it again on the same SQLite file. */
  async restart(hard: boolean): Promise<void> {
    if (hard) {
      const { pid } = JSON.parse(fs.readFileSync(path.join(this.dataDir, SERVER_PID_FILE), 'utf8')) as { pid: number };
      process.kill(-pid, 'SIGKILL');
      await eventually(
        () => isAlive(pid),
        (alive) => !alive,
        { intervalMs: 50, attempts: 1_200, problem: `The killed server (pid ${pid}) did not exit.` },
      );
    } else {
      await stopEmbeddedServer(this.dataDir);
    }
    await this.start();
    this.restarts += 1;
  }

  async stop(): Promise<void> {
    await stopEmbeddedServer(this.dataDir);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2] !== 'Z'; // a zombie has exited
  } catch {
    return true; // no /proc: trust the signal check
  }
}
