import { describe, expect, it } from 'vitest';
import { describeIssues } from '../../src/contract/issues';
import { mcpServerConfigSchema, mcpServersSchema } from '../../src/mcp/server-config';

/** What is wrong with `value` as one MCP server entry, as a person reads it; undefined when it is valid. */
function problems(value: unknown): string | undefined {
  const parsed = mcpServerConfigSchema.safeParse(value);
  return parsed.success ? undefined : describeIssues(parsed.error.issues, 'server');
}

describe('mcpServerConfigSchema', () => {
  it('mcpServerConfigSchema: takes a stdio server with args, env, cwd and the common options', () => {
    const stdio = {
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-filesystem', './data'],
      env: { LOG: '1' },
      cwd: '/srv',
      tools: ['read_text_file'],
      toolsToApprove: ['write_file'],
      timeoutSeconds: 5,
    };
    expect(mcpServerConfigSchema.parse(stdio)).toEqual(stdio);
  });

  it('mcpServerConfigSchema: takes a Streamable HTTP server with headers, and toolsToApprove "*"', () => {
    const http = { url: 'http://127.0.0.1:3001/mcp', headers: { Authorization: 'Bearer x' }, toolsToApprove: '*' };
    expect(mcpServerConfigSchema.parse(http)).toEqual(http);
  });

  it('mcpServerConfigSchema: an entry with neither command nor url says what it needs', () => {
    expect(problems({ tools: ['echo'] })).toBe(
      'server: an MCP server needs either "command" (stdio) or "url" (Streamable HTTP)',
    );
  });

  it('mcpServerConfigSchema: an entry with both command and url is refused', () => {
    expect(problems({ command: 'npx', url: 'http://127.0.0.1:3001/mcp' })).toBe(
      'server: an MCP server takes either "command" (stdio) or "url" (Streamable HTTP), not both',
    );
  });

  it('mcpServerConfigSchema: stdio-only keys with url, headers with command, unknown keys and bad values are named', () => {
    expect(problems({ url: 'http://127.0.0.1:3001/mcp', args: ['x'] })).toBe(
      'args: "args" is for stdio servers (with "command"), not for one with "url"',
    );
    expect(problems({ command: 'npx', headers: { a: 'b' } })).toBe(
      'headers: "headers" is for Streamable HTTP servers (with "url"), not for one with "command"',
    );
    expect(problems({ command: 'npx', arguments: ['x'] })).toBe('server: Unrecognized key: "arguments"');
    expect(problems({ command: '' })).toBe('command: "command" must not be empty');
    expect(problems({ url: 'file:///tmp/socket' })).toBe('url: "url" must be an http or https URL');
    expect(problems({ command: 'npx', timeoutMs: 0 })).toMatch(/^timeoutMs: /);
    expect(problems({ command: 'npx', toolsToApprove: 'write_file' })).toMatch(/^toolsToApprove: /);
  });
});

describe('mcpServersSchema', () => {
  it('mcpServersSchema: server names hold letters, digits, _ and -, and never "__"', () => {
    expect(mcpServersSchema.parse({ 'my-files_2': { command: 'npx' } })).toEqual({ 'my-files_2': { command: 'npx' } });
    const parsed = mcpServersSchema.safeParse({
      'my.files': { command: 'npx' },
      my__files: { url: 'http://127.0.0.1:1/mcp' },
    });
    expect(parsed.success).toBe(false);
    expect(describeIssues(parsed.error!.issues, 'mcpServers')).toBe(
      'my.files: the MCP server name "my.files" may hold only letters, digits, "_" and "-"; ' +
        'my__files: the MCP server name "my__files" must not contain "__" (it separates server and tool in tool names)',
    );
  });

  it('mcpServersSchema: an invalid entry is named by its server', () => {
    const parsed = mcpServersSchema.safeParse({ files: {} });
    expect(describeIssues(parsed.error!.issues, 'mcpServers')).toBe(
      'files: an MCP server needs either "command" (stdio) or "url" (Streamable HTTP)',
    );
  });
});
