import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';

/**
 * The Temporal server of `npm run test:cluster`, as test/cluster/run.ts prepared it and the cluster
 * test restarts it: the binary built from the Go module, started with docker-compose.yml's
 * environment for the `temporal` service. run.ts writes this description to a file and hands its
 * path to the test in `WAVELOOP_CLUSTER_STACK`.
 */
export interface ClusterStack {
  /** The frontend, `127.0.0.1:<port>`. */
  address: string;
  /** The server version, from docker-compose.yml's image tag. */
  version: string;
  server: {
    /** `temporal-server`, built with `go install` (`.tools/temporal-server-<version>/`). */
    binary: string;
    /** Its environment: the compose file's, with this machine's addresses and ports. */
    env: Record<string, string>;
    /** The working directory, laid out as the image's /etc/temporal (the dynamic config file is under it). */
    cwd: string;
    /** Where its output goes (appended across restarts). */
    log: string;
    /** The pid of the running server (its process group), rewritten at each start. */
    pidFile: string;
  };
  /** The PostgreSQL cluster, for queries on Temporal's tables. */
  postgres: { psql: string; port: number; user: string; password: string };
}

/** The environment variable that names the stack file. */
export const STACK_ENV = 'WAVELOOP_CLUSTER_STACK';

export function readStack(file = process.env[STACK_ENV]): ClusterStack {
  if (!file) throw new Error(`${STACK_ENV} is not set: run the cluster test with \`npm run test:cluster\`.`);
  return JSON.parse(fs.readFileSync(file, 'utf8')) as ClusterStack;
}

/** How long a server start may take before it counts as failed (the first start creates the system namespace). */
const READY_TIMEOUT_MS = 120_000;
/** How long a SIGTERM may take before the server is killed. */
const STOP_TIMEOUT_MS = 20_000;

/**
 * Starts, kills and restarts the stack's Temporal server. Every start writes the pid file, so
 * whoever started the server last, this process or another, `stop` in any process ends it.
 */
export class ServerProcess {
  restarts = 0;
  private child?: ChildProcess;

  constructor(readonly stack: ClusterStack) {}

  /**
   * Starts the server in a process group of its own and waits until its frontend serves: until it
   * describes the `default` namespace when `namespace` (the namespace exists after the first start),
   * else until it answers at all.
   */
  async start({ namespace = true } = {}): Promise<void> {
    const { binary, env, cwd, log, pidFile } = this.stack.server;
    const out = fs.openSync(log, 'a');
    const child = spawn(binary, ['start'], {
      cwd,
      env: { PATH: process.env.PATH ?? '', ...env },
      detached: true,
      stdio: ['ignore', out, out],
    });
    fs.closeSync(out);
    child.unref();
    this.child = child;
    let exited: string | undefined;
    child.once(
      'exit',
      (code, signal) =>
        (exited = `The Temporal server exited (${signal ?? `status ${code}`}) while starting; its log: ${log}`),
    );
    fs.writeFileSync(pidFile, String(child.pid));
    await waitUntilServing(this.stack.address, namespace, Date.now() + READY_TIMEOUT_MS, () => exited);
  }

  /** The running server's pid, from the pid file. */
  pid(): number | undefined {
    const text = fs.existsSync(this.stack.server.pidFile)
      ? fs.readFileSync(this.stack.server.pidFile, 'utf8').trim()
      : '';
    return text ? Number(text) : undefined;
  }

  /** SIGKILLs the server (a crash) and waits until it is gone. */
  async kill(): Promise<void> {
    await this.signalAndWait('SIGKILL', STOP_TIMEOUT_MS);
  }

  /** Stops the server as `docker compose stop` does (SIGTERM, then SIGKILL after a while). */
  async stop(): Promise<void> {
    if (!(await this.signalAndWait('SIGTERM', STOP_TIMEOUT_MS))) await this.kill();
  }

  /** Kills (`hard`) or stops the server and starts it again on the same databases. */
  async restart(hard: boolean): Promise<void> {
    await (hard ? this.kill() : this.stop());
    await this.start();
    this.restarts += 1;
  }

  /** Signals the server's process group; true once it has exited within `timeoutMs`. */
  private async signalAndWait(signal: NodeJS.Signals, timeoutMs: number): Promise<boolean> {
    const pid = this.pid();
    if (pid === undefined || !isAlive(pid)) return true;
    try {
      process.kill(-pid, signal);
    } catch {
      return true; // gone already
    }
    const deadline = Date.now() + timeoutMs;
    while (isAlive(pid)) {
      if (Date.now() >= deadline) return false;
      await sleep(100);
    }
    return true;
  }
}

/**
 * Polls the frontend until it answers `getClusterInfo` and, when `namespace`, describes the `default`
 * namespace. `failed()` reports a dead server early.
 */
async function waitUntilServing(
  address: string,
  namespace: boolean,
  deadline: number,
  failed: () => string | undefined,
): Promise<void> {
  let lastError = 'no answer';
  for (;;) {
    const failure = failed();
    if (failure) throw new Error(failure);
    let connection: Connection | undefined;
    try {
      connection = await Connection.connect({ address, connectTimeout: '2s' });
      await connection.workflowService.getClusterInfo({});
      if (namespace) await connection.workflowService.describeNamespace({ namespace: 'default' });
      return;
    } catch (err) {
      lastError = err instanceof Error ? err.message : String(err);
    } finally {
      await connection?.close().catch(() => undefined);
    }
    if (Date.now() >= deadline)
      throw new Error(`The Temporal server at ${address} did not serve in time (${lastError}).`);
    await sleep(500);
  }
}

/** Whether `pid` runs (a zombie, exited but not yet reaped by its parent, does not). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2] !== 'Z';
  } catch {
    return true; // no /proc: trust the signal check
  }
}
