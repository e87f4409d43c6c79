import * as os from 'node:os';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { WaveloopClient } from '../client/waveloop-client';
import { durationMs } from '../contract/settings/duration';
import type { LoadedProject } from '../project/load-project';
import { ensureEmbeddedServer } from '../server/embedded-server';
import { loadSettings, type WaveloopSettings } from '../settings';
import { io } from './io';

/**
 * What every CLI command uses: output (stdout for what the command says, stderr for notes about how
 * it goes, so `--json` output stays parseable), the parsers of duration and count options, a client
 * that closes itself, the embedded server, links to a run in the Web UI, the project config, and
 * the wrapper that turns a command's result into the program's exit status.
 */

/** The exit status of the command that ran, by program (`action` records it, `exitStatus` reads it). */
const exitStatuses = new WeakMap<Command, number>();

/**
 * A command's action: `work` resolves to the command's exit status, which the program records
 * (`exitStatus`). Commander calls it with the command as `this`.
 */
export function action<A extends unknown[]>(
  work: (...args: A) => Promise<number>,
): (this: Command, ...args: A) => Promise<void> {
  return async function (this: Command, ...args: A) {
    const code = await work(...args);
    exitStatuses.set(rootOf(this), code);
  };
}

function rootOf(command: Command): Command {
  return command.parent ? rootOf(command.parent) : command;
}

/** The exit status the command that `program` ran resolved to (0 when none ran, as for `--help`). */
export function exitStatus(program: Command): number {
  return exitStatuses.get(program) ?? 0;
}

/**
 * The project config of `program`'s `--config` (else `WAVELOOP_CONFIG`, else the nearest
 * `waveloop.config.ts`), loaded on first use: a command that needs no project never loads the
 * config loader.
 */
export async function projectOf(program: Command): Promise<LoadedProject> {
  const { loadProject } = await import('../project/load-project');
  const { env, cwd } = io();
  return loadProject({ file: program.opts<{ config?: string }>().config ?? env.WAVELOOP_CONFIG, cwd });
}

/**
 * `--by <name>`: who starts a run or decides (`what` says which); without it, the OS user. An
 * assertion, trusted as far as this machine's access to Temporal is (docs/security.md).
 */
export function byOption(what: string): Option {
  return new Option('--by <name>', `who ${what} (default: your OS user name)`).argParser((value: string) => {
    if (value.trim() === '') throw new InvalidArgumentError('must be a name, not empty');
    return value.trim();
  });
}

/** The OS user's name: who starts runs and decides, unless `--by` says otherwise. */
export function osUser(): string {
  try {
    return os.userInfo().username || 'unknown';
  } catch {
    return 'unknown'; // no user entry for this uid (some containers)
  }
}

/** The settings of the command line's environment (`io().env`). */
export function settings(): WaveloopSettings {
  return loadSettings(io().env);
}

/** Writes one line to stdout. */
export const print = (line = '') => io().stdout.write(`${line}\n`);
/** Writes text to stdout as it is, for streamed model output. */
export const write = (text: string) => io().stdout.write(text);
/** Writes one line to stderr. */
export const note = (line: string) => io().stderr.write(`${line}\n`);

/** The items of a comma-separated list, trimmed, empty ones left out (`a, b,` → `['a', 'b']`); a commander option parser. */
export function commaList(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

/** The milliseconds in a duration such as `90s`, `1.5h`, `3d` or `500ms` (a bare number is seconds); a commander option parser. */
export function parseDuration(value: string): number {
  const ms = durationMs(value);
  if (ms === undefined) throw new InvalidArgumentError('use a duration like 90s, 10m, 2h or 3d');
  return ms;
}

/** A whole number of at least 1; a commander option parser. */
export function parsePositiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive whole number');
  return n;
}

/** Starts the embedded dev server unless `TEMPORAL_ADDRESS` points elsewhere; returns the Web UI address, if known. */
export async function ensureServer(config: WaveloopSettings): Promise<string | undefined> {
  if (config.temporalAddress) return io().env.WAVELOOP_UI_URL;
  const server = await ensureEmbeddedServer({ dataDir: config.dataDir, ...config.embeddedServer });
  if (server.started) note(`Started the embedded Temporal server on ${server.address} (data in ${config.dataDir}).`);
  return server.uiUrl;
}

/** The run's page in the Web UI, when its address is known. */
export function runUrl(uiUrl: string | undefined, config: WaveloopSettings, workflowId: string): string | undefined {
  return uiUrl ? `${uiUrl}/namespaces/${config.namespace}/workflows/${encodeURIComponent(workflowId)}` : undefined;
}

/** Connects a client, hands it to `work`, and closes it however `work` ends. */
export async function withClient<T>(
  config: WaveloopSettings,
  work: (client: WaveloopClient) => Promise<T>,
): Promise<T> {
  const client = await WaveloopClient.connect(config, { identity: osUser() });
  try {
    return await work(client);
  } finally {
    await client.close();
  }
}
