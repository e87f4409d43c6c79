import * as fs from 'node:fs';
import * as path from 'node:path';
import { EMBEDDED_UI_PORT } from '../settings';

/**
 * What the embedded Temporal dev server keeps in its data dir: its SQLite file, its log, and the pid
 * file waveloop writes when it spawns the server, so that later commands find it again (to reuse,
 * report on or stop it). The SQLite file outlives stop/start, so runs survive a restart.
 */

export const SERVER_DB_FILE = 'temporal.db';
export const SERVER_LOG_FILE = 'temporal-server.log';
export const SERVER_PID_FILE = 'temporal-server.pid';

/** What the pid file records, as JSON. */
export interface PidFile {
  pid: number;
  address: string;
  uiPort: number;
  startedAt: string;
}

/** The paths of the server's files in `dataDir`. */
export interface ServerFiles {
  db: string;
  log: string;
  pid: string;
}

export function serverFiles(dataDir: string): ServerFiles {
  return {
    db: path.join(dataDir, SERVER_DB_FILE),
    log: path.join(dataDir, SERVER_LOG_FILE),
    pid: path.join(dataDir, SERVER_PID_FILE),
  };
}

/**
 * The record in the pid file, or undefined when the file is missing, is not JSON, or lacks a pid or
 * an address. A missing Web UI port reads as the embedded default, a missing start time as ''.
 */
export function readPidFile(file: string): PidFile | undefined {
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

/** Writes `record` to the pid file as one line of JSON, replacing what was there. */
export function writePidFile(file: string, record: PidFile): void {
  fs.writeFileSync(file, `${JSON.stringify(record)}\n`);
}

/** The last `lines` lines of the server log, for error messages; says so when it is empty or missing. */
export function logTail(file: string, lines = 30): string {
  try {
    const text = fs.readFileSync(file, 'utf8').trimEnd();
    return text.split('\n').slice(-lines).join('\n') || '(the log is empty)';
  } catch {
    return '(no log)';
  }
}
