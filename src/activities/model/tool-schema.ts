import { z } from 'zod';
import type { AnyTool } from '../../tools/define';

/**
 * JSON Schema made from a zod schema, as the OpenAI API takes it (without `$schema`), and tight:
 * every token of it is in every model call's prompt, and local servers turn it into a grammar.
 * A string `format` (`date`, `email`) goes without the long `pattern` zod adds to it, and an
 * integer without the ±2^53 bounds zod gives every `int()`; the arguments are still checked
 * against the zod schema itself.
 */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  return tightened(rest) as Record<string, unknown>;
}

function tightened(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(tightened);
  if (typeof node !== 'object' || node === null) return node;
  const entries = Object.entries(node).filter(([key, value]) => {
    if (key === 'pattern' && 'format' in node) return false;
    if (key === 'maximum' && value === Number.MAX_SAFE_INTEGER) return false;
    if (key === 'minimum' && value === Number.MIN_SAFE_INTEGER) return false;
    return true;
  });
  return Object.fromEntries(
    entries.map(([key, value]) => [key, key === 'properties' || typeof value === 'object' ? tightened(value) : value]),
  );
}

/**
 * The JSON Schema of a tool's arguments, as the model sees it: the tool's own `inputSchema` as
 * given (an MCP server's), or else the one made from its zod `parameters`.
 */
export function toolParametersSchema(tool: AnyTool): Record<string, unknown> {
  return tool.inputSchema ?? jsonSchemaOf(tool.parameters);
}
