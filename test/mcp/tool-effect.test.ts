import { describe, expect, it } from 'vitest';
import { mcpToolRequiresApproval } from '../../src/mcp/mcp-tool';
import { mcpServerConfigSchema } from '../../src/mcp/server-config';
import { isDestructive, mcpToolEffect } from '../../src/mcp/tool-effect';

const tool = (annotations?: Record<string, boolean>) => ({
  name: 'x',
  inputSchema: { type: 'object' as const },
  annotations,
});

describe('mcpToolEffect', () => {
  it('readOnlyHint gives read, idempotentHint idempotent, anything else write', () => {
    expect(mcpToolEffect(tool({ readOnlyHint: true, idempotentHint: true }))).toBe('read');
    expect(mcpToolEffect(tool({ readOnlyHint: false, idempotentHint: true, destructiveHint: true }))).toBe(
      'idempotent',
    );
    expect(mcpToolEffect(tool({ readOnlyHint: false, destructiveHint: false }))).toBe('write');
    expect(mcpToolEffect(tool())).toBe('write');
  });
});

describe('destructive MCP tools', () => {
  it('only an explicit destructiveHint on a tool that is not read-only counts', () => {
    expect(isDestructive(tool({ destructiveHint: true }))).toBe(true);
    expect(isDestructive(tool({ readOnlyHint: true, destructiveHint: true }))).toBe(false);
    expect(isDestructive(tool({ destructiveHint: false }))).toBe(false);
    expect(isDestructive(tool())).toBe(false);
  });

  it('wait for approval by default; destructiveTools "run" lets them run; toolsToApprove still holds', () => {
    const destructive = { ...tool({ destructiveHint: true }), name: 'delete_file' };
    expect(mcpToolRequiresApproval({ command: 'npx' }, destructive)).toBe(true);
    expect(mcpToolRequiresApproval({ command: 'npx', destructiveTools: 'approve' }, destructive)).toBe(true);
    expect(mcpToolRequiresApproval({ command: 'npx', destructiveTools: 'run' }, destructive)).toBe(false);
    expect(
      mcpToolRequiresApproval(
        { command: 'npx', destructiveTools: 'run', toolsToApprove: ['delete_file'] },
        destructive,
      ),
    ).toBe(true);
    expect(mcpToolRequiresApproval({ command: 'npx' }, tool())).toBe(false);
  });

  it('destructiveTools is "approve" or "run"', () => {
    const parsed = mcpServerConfigSchema.safeParse({ command: 'npx', destructiveTools: 'ask' });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toBe('"destructiveTools" is "approve" (the default) or "run"');
  });
});
