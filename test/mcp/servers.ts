import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import type { McpHttpServerConfig, McpStdioServerConfig } from '../../src/mcp/server-config';
import { freePort } from '../support/ports';
import { eventually } from '../support/wait';

/**
 * The MCP reference servers the tests talk to, from the devDependencies: the filesystem server
 * over stdio (started by waveloop itself), the everything server over Streamable HTTP (started
 * here, on a free port).
 */

const FILESYSTEM_BIN = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
const EVERYTHING_BIN = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

/** The filesystem server over stdio, allowed to read and write under `root` only. */
export function filesystemServer(
  root: string,
  options: Omit<McpStdioServerConfig, 'command' | 'args'> = {},
): McpStdioServerConfig {
  return { command: process.execPath, args: [FILESYSTEM_BIN, root], ...options };
}

/**
 * The pids of this process's children whose command line mentions `text` (a stdio server started
 * by a worker of this test process, recognised by its unique root directory).
 */
export function childProcessesMentioning(text: string): number[] {
  return execFileSync('ps', ['-A', '-o', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter(
      (match): match is RegExpExecArray =>
        match !== null && Number(match[2]) === process.pid && match[3].includes(text),
    )
    .map((match) => Number(match[1]));
}

/** Whether a process with this pid still exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The everything server, reached over Streamable HTTP at `url`; `stop` and `start` take it down and bring it back on the same port. */
export class EverythingHttpServer {
  private child: ChildProcess | undefined;
  private port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}/mcp`;
  }

  config(options: Omit<McpHttpServerConfig, 'url'> = {}): McpHttpServerConfig {
    return { url: this.url, ...options };
  }

  /** Starts the server (on a free port the first time, on the same one after `stop`) and waits until it listens. */
  async start(): Promise<this> {
    if (this.port === 0) this.port = await freePort();
    const child = spawn(process.execPath, [EVERYTHING_BIN, 'streamableHttp'], {
      env: { ...process.env, PORT: String(this.port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    this.child = child;
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await eventually(
      () => stderr,
      (text) => /listening on port/.test(text) || child.exitCode !== null,
      { problem: 'The everything server did not start.' },
    );
    if (child.exitCode !== null) throw new Error(`The everything server exited: ${stderr}`);
    return this;
  }

  /** Kills the server and waits until it is gone. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
}
