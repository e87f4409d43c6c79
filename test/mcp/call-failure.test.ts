import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { callFailure } from '../../src/mcp/call-failure';
import { ToolError } from '../../src/tools/define';

describe('callFailure', () => {
  it('callFailure: a refused call (unknown tool, invalid arguments) is a ToolError and keeps the connection', () => {
    for (const code of [ErrorCode.MethodNotFound, ErrorCode.InvalidParams, ErrorCode.InvalidRequest]) {
      const { error, dropConnection } = callFailure('files', 'nope', new McpError(code, 'Tool nope not found'));
      expect(error).toBeInstanceOf(ToolError);
      expect(error.message).toBe(`MCP error ${code}: Tool nope not found`);
      expect(dropConnection).toBe(false);
    }
  });

  it('callFailure: a closed connection is retryable, names the server and drops the connection', () => {
    const { error, dropConnection } = callFailure(
      'files',
      'read_text_file',
      new McpError(ErrorCode.ConnectionClosed, 'Connection closed'),
    );
    expect(error).not.toBeInstanceOf(ToolError);
    expect(error.message).toBe(
      'MCP server "files" closed the connection during the call of read_text_file (MCP error -32000: Connection closed).',
    );
    expect(dropConnection).toBe(true);
  });

  it('callFailure: a transport failure (server down) is retryable and drops the connection', () => {
    const down = new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:3001') });
    const { error, dropConnection } = callFailure('everything', 'echo', down);
    expect(error).not.toBeInstanceOf(ToolError);
    expect(error.message).toBe(
      'MCP server "everything" could not be reached for the call of echo: fetch failed (connect ECONNREFUSED 127.0.0.1:3001)',
    );
    expect(dropConnection).toBe(true);
  });

  it('callFailure: a timeout and a server-side failure are retryable and keep the connection', () => {
    const timeout = callFailure('slow', 'think', new McpError(ErrorCode.RequestTimeout, 'Request timed out'));
    expect(timeout.error).not.toBeInstanceOf(ToolError);
    expect(timeout.error.message).toMatch(/^MCP server "slow" did not answer the call of think in time/);
    expect(timeout.dropConnection).toBe(false);
    const internal = callFailure('slow', 'think', new McpError(ErrorCode.InternalError, 'disk full'));
    expect(internal.error).not.toBeInstanceOf(ToolError);
    expect(internal.error.message).toBe('MCP server "slow" failed the call of think: MCP error -32603: disk full');
    expect(internal.dropConnection).toBe(false);
  });
});
