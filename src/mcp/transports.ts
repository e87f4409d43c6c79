import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpServerConfig } from './server-config';

/**
 * A fresh transport to one MCP server. A stdio server is started when the client connects: the
 * `command` with its `args` in `cwd`, its environment `env` over the SDK's minimal inherited one
 * (PATH, HOME, USER, SHELL, TERM, LOGNAME), its stderr piped to `onStderr` rather than into the
 * worker's output. A Streamable HTTP server is reached at `url` with `headers` on every request.
 */
export function createTransport(config: McpServerConfig, onStderr: (chunk: string) => void): Transport {
  if (config.url !== undefined) {
    return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers } });
  }
  const transport = new StdioClientTransport({
    command: config.command,
    args: config.args,
    env: { ...getDefaultEnvironment(), ...config.env },
    cwd: config.cwd,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer | string) => onStderr(chunk.toString()));
  return transport;
}

/** How a server is reached, for messages: its command line, or its URL. */
export function describeEndpoint(config: McpServerConfig): string {
  return config.url ?? [config.command, ...(config.args ?? [])].join(' ');
}
