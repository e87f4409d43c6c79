import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolEffect } from '../contract/effects/effect';
import { describeIssues } from '../contract/issues';
import type { AnyTool } from '../tools/define';
import { mcpTool } from './mcp-tool';
import { mcpServersSchema, type McpServerConfig, type McpServers } from './server-config';
import type { McpServerConnection } from './server-connection';
import { isDestructive, mcpToolEffect } from './tool-effect';

export interface McpConnectOptions {
  /** The client name waveloop introduces itself by (default `waveloop`). */
  clientName?: string;
  /** The client version it gives (default `0.0.0`). */
  clientVersion?: string;
  /** Gets every line a stdio server writes to its stderr (which otherwise stays out of the worker's output). */
  onStderr?: (server: string, line: string) => void;
}

/** One offered MCP tool, for listings. */
export interface McpToolListing {
  /** The name the model calls it by: `<server>__<tool>`, shortened past 64 characters. */
  name: string;
  server: string;
  /** The server's own name for the tool. */
  tool: string;
  description: string;
  requiresApproval: boolean;
  /** What a call does to the world, from the server's annotations (`mcpToolEffect`). */
  effect: ToolEffect;
  /** The server marks the tool destructive (`destructiveHint`). */
  destructive: boolean;
}

interface Offered {
  connection: McpServerConnection;
  tool: Tool;
  waveloopTool: AnyTool;
}

/**
 * The worker's connections to its MCP servers, and the waveloop tools they offer: one tool per
 * allowed tool of every server, each call of which runs as one activity in its wave. The tool list
 * is read once, at `connect`; a server that later changes its tools keeps the tools offered then
 * (a tool it dropped answers the model with an error).
 */
export class McpConnections {
  private constructor(
    private readonly connections: readonly McpServerConnection[],
    private readonly offered: readonly Offered[],
  ) {}

  /**
   * Connects to every server in parallel (starting the stdio ones) and lists its tools. Throws an
   * `Error` naming each server that cannot be reached, and for a config that does not hold (an
   * invalid entry, an allowlist or approval list naming a tool the server does not have, two
   * tools whose names come out the same); the servers already started are stopped then.
   */
  static async connect(servers: McpServers, options: McpConnectOptions = {}): Promise<McpConnections> {
    const parsed = mcpServersSchema.safeParse(servers);
    if (!parsed.success) throw new Error(`Invalid MCP servers: ${describeIssues(parsed.error.issues, 'mcpServers')}`);
    const info = { name: options.clientName ?? 'waveloop', version: options.clientVersion ?? '0.0.0' };
    const onStderr = options.onStderr;
    const entries = Object.entries(parsed.data);
    if (entries.length === 0) return new McpConnections([], []);
    // The MCP SDK takes a quarter of a second to load: a worker without MCP servers never loads it.
    const { McpServerConnection } = await import('./server-connection');
    const connections = entries.map(
      ([name, config]) => new McpServerConnection(name, config, info, onStderr && ((line) => onStderr(name, line))),
    );
    const listed = await Promise.allSettled(connections.map((connection) => connection.listTools()));
    try {
      const unreachable = listed.flatMap((result) =>
        result.status === 'rejected' ? [String((result.reason as Error)?.message ?? result.reason)] : [],
      );
      if (unreachable.length > 0) throw new Error(unreachable.join('\n'));
      const offered = connections.flatMap((connection, i) =>
        allowedTools(connection.server, connection.config, (listed[i] as PromiseFulfilledResult<Tool[]>).value).map(
          (tool) => ({
            connection,
            tool,
            waveloopTool: mcpTool(connection, tool),
          }),
        ),
      );
      assertDistinctNames(offered);
      return new McpConnections(connections, offered);
    } catch (err) {
      await Promise.all(connections.map((connection) => connection.close()));
      throw err;
    }
  }

  /** The waveloop tools for every allowed tool of every server, in config order. */
  tools(): AnyTool[] {
    return this.offered.map((offer) => offer.waveloopTool);
  }

  /** One entry per offered tool, in the order of `tools()`. */
  describe(): McpToolListing[] {
    return this.offered.map(({ connection, tool, waveloopTool }) => ({
      name: waveloopTool.name,
      server: connection.server,
      tool: tool.name,
      description: waveloopTool.description,
      requiresApproval: waveloopTool.requiresApproval === true,
      effect: mcpToolEffect(tool),
      destructive: isDestructive(tool),
    }));
  }

  /** Closes every connection, stopping the stdio servers; calls made after it fail. Idempotent. */
  async close(): Promise<void> {
    await Promise.all(this.connections.map((connection) => connection.close()));
  }
}

/** The server's tools that its `tools` allowlist lets through (all without one), checked against what it has. */
function allowedTools(server: string, config: McpServerConfig, tools: Tool[]): Tool[] {
  const has = new Set(tools.map((tool) => tool.name));
  const missing = (names: readonly string[]) => names.filter((name) => !has.has(name));
  const available = `it has: ${[...has].join(', ') || 'no tools'}`;
  const notThere = missing(config.tools ?? []);
  if (notThere.length > 0)
    throw new Error(`MCP server "${server}" has no tool ${quoted(notThere)} (named in "tools"); ${available}.`);
  const allowed = config.tools ? tools.filter((tool) => config.tools!.includes(tool.name)) : tools;
  const approvals = config.toolsToApprove === '*' ? [] : (config.toolsToApprove ?? []);
  const notOffered = approvals.filter((name) => !allowed.some((tool) => tool.name === name));
  if (notOffered.length > 0) {
    throw new Error(
      `MCP server "${server}" does not offer ${quoted(notOffered)} (named in "toolsToApprove"); ${available}${config.tools ? `, of which "tools" allows ${quoted(config.tools)}` : ''}.`,
    );
  }
  return allowed;
}

function assertDistinctNames(offered: readonly Offered[]): void {
  const seen = new Map<string, Offered>();
  for (const offer of offered) {
    const earlier = seen.get(offer.waveloopTool.name);
    if (earlier) {
      throw new Error(
        `MCP tools ${earlier.connection.server}/${earlier.tool.name} and ${offer.connection.server}/${offer.tool.name} would both be called ` +
          `"${offer.waveloopTool.name}"; leave one out with the server's "tools" allowlist.`,
      );
    }
    seen.set(offer.waveloopTool.name, offer);
  }
}

function quoted(names: readonly string[]): string {
  return names.map((name) => `"${name}"`).join(', ');
}
