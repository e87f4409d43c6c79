import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toolParametersSchema } from '../../../src/activities/model/tool-schema';
import { defineTool } from '../../../src/tools/define';

describe('toolParametersSchema', () => {
  it('toolParametersSchema: a tool without inputSchema gets the JSON Schema made from its zod parameters', () => {
    const tool = defineTool({
      name: 'greet',
      description: 'Greets.',
      parameters: z.object({ name: z.string().describe('Who') }),
      execute: ({ name }) => `Hi ${name}`,
    });
    expect(toolParametersSchema(tool)).toEqual({
      type: 'object',
      properties: { name: { type: 'string', description: 'Who' } },
      required: ['name'],
    });
  });

  it('toolParametersSchema: a tool with inputSchema gets it unchanged, $schema and all', () => {
    const inputSchema = {
      type: 'object',
      properties: { path: { type: 'string' } },
      required: ['path'],
      $schema: 'http://json-schema.org/draft-07/schema#',
    };
    const tool = defineTool({
      name: 'read',
      description: 'Reads.',
      parameters: z.looseObject({}),
      inputSchema,
      execute: () => '',
    });
    expect(toolParametersSchema(tool)).toBe(inputSchema);
  });

  it("toolParametersSchema: formats go without zod's long patterns, integers without the ±2^53 bounds", () => {
    const tool = defineTool({
      name: 'book',
      description: 'Books.',
      parameters: z.object({
        day: z.iso.date(),
        email: z.email(),
        nights: z.number().int().positive(),
        code: z.string().regex(/^[A-Z]{3}$/),
      }),
      execute: () => '',
    });
    expect(toolParametersSchema(tool)).toEqual({
      type: 'object',
      properties: {
        day: { type: 'string', format: 'date' },
        email: { type: 'string', format: 'email' },
        nights: { type: 'integer', exclusiveMinimum: 0 },
        code: { type: 'string', pattern: '^[A-Z]{3}$' },
      },
      required: ['day', 'email', 'nights', 'code'],
    });
  });
});
