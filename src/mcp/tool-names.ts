import { textHash } from '../contract/text-hash';

/** The longest tool name the model APIs take (`^[a-zA-Z0-9_-]{1,64}$`). */
export const MAX_TOOL_NAME_LENGTH = 64;

/** Separates the server's name from the tool's in the name the model calls a tool by. */
export const MCP_NAME_SEPARATOR = '__';

/**
 * The name the model calls an MCP server's tool by: `<server>__<tool>`, with every character the
 * model APIs refuse replaced by `_`. A name past 64 characters is cut to 55 and ends with `_` and
 * 8 hex digits of a hash of the whole unshortened name, so two long names that share their first
 * 55 characters still differ, and the same tool gets the same name on every worker.
 */
export function mcpToolName(server: string, tool: string): string {
  const full = `${server}${MCP_NAME_SEPARATOR}${tool}`;
  const name = full.replace(/[^a-zA-Z0-9_-]/g, '_');
  if (name.length <= MAX_TOOL_NAME_LENGTH) return name;
  const suffix = `_${textHash(full)}`;
  return `${name.slice(0, MAX_TOOL_NAME_LENGTH - suffix.length)}${suffix}`;
}
