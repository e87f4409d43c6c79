import { z } from 'zod';
import { RENAMED_MCP_FIELDS } from '../contract/settings/renamed';
import { renamedFieldsShape } from '../contract/settings/schemas';

/** What every MCP server entry may say, whatever its transport. */
interface McpServerOptions {
  /** The server's tools to offer, by the server's own names; default: all of them. */
  tools?: string[];
  /** Server tool names whose calls wait for a person's approval, or `'*'` for all of them. */
  toolsToApprove?: string[] | '*';
  /**
   * What calls of the tools the server marks destructive (`destructiveHint: true`) do: `'approve'`
   * (the default) waits for a person's approval of each; `'run'` runs them as the server's other
   * tools (docs/effects.md#mcp-tools).
   */
  destructiveTools?: 'approve' | 'run';
  /** How long one call (one attempt) may take, in seconds; default 60. */
  timeoutSeconds?: number;
}

/** A server that waveloop starts as a child process and talks to over its stdin and stdout. */
export interface McpStdioServerConfig extends McpServerOptions {
  /** The program to run (`npx`, `node`, `uvx`, …), looked up on PATH. */
  command: string;
  args?: string[];
  /** Variables set for the server, over a minimal inherited environment (PATH, HOME, USER, …). */
  env?: Record<string, string>;
  /** The server's working directory; default: the worker's. */
  cwd?: string;
  url?: never;
  headers?: never;
}

/** A server that is already running, reached over MCP's Streamable HTTP transport. */
export interface McpHttpServerConfig extends McpServerOptions {
  /** The server's MCP endpoint, e.g. `http://127.0.0.1:3001/mcp`. */
  url: string;
  /** Sent with every request (an `Authorization` header, for example). */
  headers?: Record<string, string>;
  command?: never;
  args?: never;
  env?: never;
  cwd?: never;
}

/** One MCP server: started over stdio (`command`) or reached over Streamable HTTP (`url`). */
export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

/** MCP servers by name; the name prefixes their tools' names (`<server>__<tool>`). */
export type McpServers = Record<string, McpServerConfig>;

const STDIO_ONLY = ['args', 'env', 'cwd'] as const;

const flatServerSchema = z.strictObject({
  command: z.string().min(1, '"command" must not be empty').optional(),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().min(1).optional(),
  url: z.url({ protocol: /^https?$/, error: '"url" must be an http or https URL' }).optional(),
  headers: z.record(z.string(), z.string()).optional(),
  tools: z.array(z.string().min(1)).optional(),
  toolsToApprove: z.union([z.array(z.string().min(1)), z.literal('*')]).optional(),
  destructiveTools: z
    .enum(['approve', 'run'], { error: '"destructiveTools" is "approve" (the default) or "run"' })
    .optional(),
  timeoutSeconds: z.number().positive().optional(),
  ...renamedFieldsShape(RENAMED_MCP_FIELDS),
});

/**
 * One MCP server entry. Exactly one of `command` (stdio) and `url` (Streamable HTTP) must be
 * given; `args`, `env` and `cwd` go only with `command`, `headers` only with `url`; unknown keys
 * are refused.
 */
export const mcpServerConfigSchema: z.ZodType<McpServerConfig, McpServerConfig> = flatServerSchema.superRefine(
  (server, ctx) => {
    const hasCommand = server.command !== undefined;
    const hasUrl = server.url !== undefined;
    if (!hasCommand && !hasUrl) {
      ctx.addIssue({
        code: 'custom',
        message: 'an MCP server needs either "command" (stdio) or "url" (Streamable HTTP)',
      });
    } else if (hasCommand && hasUrl) {
      ctx.addIssue({
        code: 'custom',
        message: 'an MCP server takes either "command" (stdio) or "url" (Streamable HTTP), not both',
      });
    } else if (hasUrl) {
      for (const key of STDIO_ONLY.filter((k) => server[k] !== undefined)) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `"${key}" is for stdio servers (with "command"), not for one with "url"`,
        });
      }
    } else if (server.headers !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['headers'],
        message: '"headers" is for Streamable HTTP servers (with "url"), not for one with "command"',
      });
    }
  },
) as z.ZodType<McpServerConfig, McpServerConfig>;

const SERVER_NAME = /^[a-zA-Z0-9_-]+$/;

/**
 * Why `name` cannot name an MCP server, or undefined when it can: letters, digits, `_` and `-`,
 * without `__` (which separates server and tool in tool names).
 */
export function mcpServerNameProblem(name: string): string | undefined {
  if (!SERVER_NAME.test(name)) return `the MCP server name "${name}" may hold only letters, digits, "_" and "-"`;
  if (name.includes('__'))
    return `the MCP server name "${name}" must not contain "__" (it separates server and tool in tool names)`;
  return undefined;
}

/** MCP servers by name, as the config file's `mcpServers` holds them. */
export const mcpServersSchema: z.ZodType<McpServers, McpServers> = z
  .record(z.string(), mcpServerConfigSchema)
  .superRefine((servers, ctx) => {
    for (const name of Object.keys(servers)) {
      const problem = mcpServerNameProblem(name);
      if (problem) ctx.addIssue({ code: 'custom', path: [name], message: problem });
    }
  });
