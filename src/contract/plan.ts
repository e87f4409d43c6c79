import { z } from 'zod';

/**
 * The JSON planner's reply: one wave of tool calls planned at a time. Requested from the
 * model as `response_format` JSON Schema named `wave_plan`, validated with this schema.
 */
export const WavePlanSchema = z.object({
  status: z
    .enum(['continue', 'done'])
    .describe('"continue" to run the tools of this wave; "done" when the task is finished'),
  action: z.string().describe('What this wave does, in a few words'),
  tools: z
    .array(
      z.object({
        id: z.string().describe('A unique id for this call, e.g. "get_holiday"'),
        tool: z.string().describe('The tool name'),
        args: z.record(z.string(), z.unknown()).describe("The tool's arguments"),
      }),
    )
    .describe('Tool calls of this wave; they run in parallel, so they must not depend on each other'),
  reasoning: z.string().describe('Why these tools, or why done'),
  answer: z.string().optional().describe('The final answer for the user, when status is "done"'),
});
export type WavePlan = z.infer<typeof WavePlanSchema>;

export const WAVE_PLAN_SCHEMA_NAME = 'wave_plan';

/** How the model plans its tool calls: native tool calling, or one JSON wave plan per turn. */
export const PlannerSchema = z.enum(['native', 'json']);
export type Planner = z.infer<typeof PlannerSchema>;

/** The instructions the JSON planner adds to the system prompt. */
export function jsonPlannerInstructions(
  tools: Array<{ name: string; description: string; parameters: unknown }>,
): string {
  return [
    '## How you work: one wave of tools at a time',
    'Each turn, reply with ONE JSON object (no other text) of this form:',
    '{"status": "continue" | "done", "action": "what this wave does", "tools": [{"id": "unique_id", "tool": "tool_name", "args": {...}}], "reasoning": "why", "answer": "final answer, when done"}',
    'The tools of one reply run in parallel, as one wave, and you get all their results in the next turn.',
    '- Independent tools go in the same wave: resolving "Hanukkah" and "next weekend" are two calls of one wave.',
    "- A tool that needs another tool's result goes in a later wave: first resolve the dates, then check availability for them.",
    '- When you have everything you need, reply with status "done", no tools, and the answer for the user.',
    'If your model cannot produce JSON, write each call as <tool>{"tool_name": "...", "arguments": {...}}</tool> and finish by calling task_complete.',
    '',
    '## Tools',
    ...tools.map(
      (tool) => `- ${tool.name}: ${tool.description}\n  arguments (JSON Schema): ${JSON.stringify(tool.parameters)}`,
    ),
  ].join('\n');
}
