import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolEffect } from '../contract/effects/effect';

/**
 * What an MCP tool does to the world, as its server's annotations say: `readOnlyHint: true` gives
 * `read`, else `idempotentHint: true` gives `idempotent`, else `write` (a tool without annotations
 * too). Annotations are the server's word, not a guarantee; the project config's `effects` overrides
 * them per tool (docs/effects.md#mcp-tools).
 */
export function mcpToolEffect(tool: Pick<Tool, 'annotations'>): ToolEffect {
  if (tool.annotations?.readOnlyHint === true) return 'read';
  if (tool.annotations?.idempotentHint === true) return 'idempotent';
  return 'write';
}

/**
 * Whether the server marks the tool destructive: `destructiveHint: true` on a tool that is not
 * read-only. Only an explicit `true` counts, although the MCP specification reads a missing
 * `destructiveHint` as `true`: a tool without annotations is a `write` tool, which
 * `effectsToApprove: ['write']` holds for approval (docs/effects.md#mcp-tools).
 */
export function isDestructive(tool: Pick<Tool, 'annotations'>): boolean {
  return tool.annotations?.destructiveHint === true && tool.annotations.readOnlyHint !== true;
}
