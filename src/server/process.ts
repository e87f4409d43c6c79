import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { START_DEV_SEARCH_ATTRIBUTE_FLAGS } from '../contract/search-attributes';
import { logTail, type ServerFiles } from './files';
import { dynamicConfigFlags, START_DEV_DYNAMIC_CONFIG_FLAGS } from './tuning';

/**
 * The embedded server's process: spawning `temporal server start-dev` detached, so it outlives the
 * command that started it, telling whether a recorded pid is still that server, and stopping it.
 */

/** How long `terminate` waits after SIGTERM before it sends SIGKILL. */
const STOP_TIMEOUT_MS = 10_000;

/**
 * SQLite in write-ahead-log mode, synced at checkpoints rather than at every commit: a crash of
 * the server or of any process loses nothing, a power cut may lose the last moments. With SQLite's
 * defaults every workflow task and activity completion waits on an fsync; `npm run bench`
 * (scenario 4, BENCHMARKS.md) measured about half the wall time with these pragmas for 100
 * concurrent runs on a small machine.
 */
const SQLITE_PRAGMA_FLAGS = ['--sqlite-pragma', 'journal_mode=wal', '--sqlite-pragma', 'synchronous=normal'];

export interface DevServerSpawn {
  /** The Temporal CLI to run. */
  binary: string;
  host: string;
  port: number;
  uiPort: number;
  /** `host:port`, as the log header names it. */
  address: string;
  /** The working directory of the server. */
  dataDir: string;
  files: ServerFiles;
  /** Dynamic configuration beside waveloop's own, as `--dynamic-config-value key=value`. */
  dynamicConfig: Readonly<Record<string, string | number>>;
}

export interface SpawnedDevServer {
  pid: number;
  /** Why the process ended, once it has (it could not run, or it exited); undefined while it lives. */
  exited(): string | undefined;
}

/**
 * Spawns `temporal server start-dev` detached and unreferenced, in its own process group, with its
 * SQLite file in the data dir and its output appended to the log after a header line. Returns at
 * once, without waiting for the server to serve; throws, with the tail of the log, when no process
 * was created.
 */
export function spawnDevServer(opts: DevServerSpawn): SpawnedDevServer {
  const { binary, files } = opts;
  const logFd = fs.openSync(files.log, 'a');
  fs.writeSync(
    logFd,
    `\n--- waveloop: ${new Date().toISOString()} ${binary} server start-dev on ${opts.address} ---\n`,
  );
  const args = [
    'server',
    'start-dev',
    '--ip',
    opts.host,
    '--port',
    String(opts.port),
    '--ui-port',
    String(opts.uiPort),
    '--db-filename',
    files.db,
    ...SQLITE_PRAGMA_FLAGS,
    '--log-level',
    'warn',
    ...START_DEV_SEARCH_ATTRIBUTE_FLAGS,
    ...START_DEV_DYNAMIC_CONFIG_FLAGS,
    ...dynamicConfigFlags(opts.dynamicConfig),
  ];
  const child = spawn(binary, args, { detached: true, stdio: ['ignore', logFd, logFd], cwd: opts.dataDir });
  fs.closeSync(logFd);
  let exited: string | undefined;
  child.once('error', (err) => (exited = `could not run ${binary}: ${err.message}`));
  child.once('exit', (code, signal) => (exited = `the server exited (${signal ?? `code ${code}`})`));
  child.unref();
  if (child.pid === undefined) {
    throw new Error(`Could not start ${binary}: no process was created.\n${logTail(files.log)}`);
  }
  return { pid: child.pid, exited: () => exited };
}

/**
 * Whether `pid` is alive and, where /proc tells, is a `temporal server start-dev` (a pid file left
 * from before a reboot may name an unrelated process; a zombie has an empty command line).
 */
export function isOurServer(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  let cmdline: string;
  try {
    cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return true; // no /proc (macOS): trust the signal check
  }
  return cmdline.split('\0').includes('start-dev');
}

/** SIGTERM the process group (then the process), wait 10 s, then SIGKILL. True once the process is gone. */
export async function terminate(pid: number): Promise<boolean> {
  signal(pid, 'SIGTERM');
  if (await waitForExit(pid, STOP_TIMEOUT_MS)) return true;
  signal(pid, 'SIGKILL');
  return waitForExit(pid, 2_000);
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pid, sig); // the server leads its own process group (spawned detached)
  } catch {
    try {
      process.kill(pid, sig);
    } catch {
      // already gone
    }
  }
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isOurServer(pid)) {
    if (Date.now() >= deadline) return false;
    await sleep(100);
  }
  return true;
}
