import { z } from 'zod';
import type { AnyTool } from '../tools/define';

/** JSON Schema made from a zod schema, as the OpenAI API takes it (without `$schema`). */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  return rest;
}

/**
 * The JSON Schema of a tool's arguments, as the model sees it: the tool's own `inputSchema` as
 * given (an MCP server's), or else the one made from its zod `parameters`.
 */
export function toolParametersSchema(tool: AnyTool): Record<string, unknown> {
  return tool.inputSchema ?? jsonSchemaOf(tool.parameters);
}
