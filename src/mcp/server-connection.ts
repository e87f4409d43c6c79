import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { callFailure, errorText } from './call-failure';
import type { McpServerConfig } from './server-config';
import { StderrTail } from './stderr-tail';
import { createTransport, describeEndpoint } from './transports';

/** How long connecting to a server (starting it, for stdio) and listing its tools may take. */
export const MCP_CONNECT_TIMEOUT_MS = 60_000;

/** The name and version waveloop gives itself when it introduces itself to a server. */
export interface McpClientInfo {
  name: string;
  version: string;
}

/** A live connection and the tools the server listed on it. */
interface Session {
  client: Client;
  tools: Tool[];
}

/**
 * The one connection to one MCP server, kept between calls and shared by the calls of a wave.
 * It opens on first use; when it closes (a stdio server that exited or was killed) or a call finds
 * it broken, the next call opens a new one, which for stdio starts the server again. A stdio
 * server's stderr does not reach the worker's output: its last lines are kept and quoted in the
 * errors about the server, and `onStderr` (when given) gets every line.
 */
export class McpServerConnection {
  private session: Promise<Session> | undefined;
  private closed = false;
  private readonly stderr = new StderrTail();

  constructor(
    readonly server: string,
    readonly config: McpServerConfig,
    private readonly clientInfo: McpClientInfo,
    private readonly onStderr?: (line: string) => void,
  ) {}

  /** Connects (unless connected) and returns the server's tools, every page of its list. */
  async listTools(): Promise<Tool[]> {
    return (await this.connect()).tools;
  }

  /**
   * Calls the server's tool `name`, connecting first when there is no live connection. Throws
   * what `callFailure` makes of a failure (a `ToolError` for a refused call, else a retryable
   * `Error` naming the server); a failure to connect is a retryable `Error` too.
   */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: { signal: AbortSignal; timeoutMs: number },
  ): Promise<CallToolResult> {
    const session = this.connect();
    const { client } = await session;
    try {
      return (await client.callTool({ name, arguments: args }, undefined, {
        signal: options.signal,
        timeout: options.timeoutMs,
      })) as CallToolResult;
    } catch (err) {
      if (options.signal.aborted) throw err;
      const failure = callFailure(this.server, name, err);
      if (failure.dropConnection) await this.drop(session, client);
      throw failure.error;
    }
  }

  /** Closes the connection (stopping a stdio server); later calls fail. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    const session = this.session;
    this.session = undefined;
    const open = await session?.catch(() => undefined);
    await open?.client.close().catch(() => undefined);
  }

  private connect(): Promise<Session> {
    if (this.closed)
      return Promise.reject(new Error(`MCP server "${this.server}" is closed: the worker is shutting down.`));
    if (this.session) return this.session;
    const session = this.open(() => {
      if (this.session === session) this.session = undefined;
    });
    this.session = session;
    session.catch(() => {
      if (this.session === session) this.session = undefined;
    });
    return session;
  }

  private async open(onClose: () => void): Promise<Session> {
    const client = new Client(this.clientInfo, { capabilities: {} });
    const transport = createTransport(this.config, (chunk) =>
      this.stderr.push(chunk).forEach((line) => this.onStderr?.(line)),
    );
    try {
      await client.connect(transport, { timeout: MCP_CONNECT_TIMEOUT_MS });
      const tools: Tool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor === undefined ? undefined : { cursor }, {
          timeout: MCP_CONNECT_TIMEOUT_MS,
        });
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      client.onclose = onClose;
      return { client, tools };
    } catch (err) {
      await client.close().catch(() => undefined);
      throw new Error(this.unreachable(err), { cause: err });
    }
  }

  private async drop(session: Promise<Session>, client: Client): Promise<void> {
    if (this.session === session) this.session = undefined;
    await client.close().catch(() => undefined);
  }

  private unreachable(err: unknown): string {
    const tail = this.stderr.text();
    return (
      `MCP server "${this.server}" could not be reached (${describeEndpoint(this.config)}): ${errorText(err)}` +
      (tail ? `\nIts last output on stderr:\n${tail}` : '')
    );
  }
}
