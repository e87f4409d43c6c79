import { z } from 'zod';
import { describeIssues } from '../contract/issues';
import { WavePlanSchema, type WavePlan } from '../contract/plan';

/*
 * The JSON planner's reply parser. It validates with zod, so workflow code loads it only
 * when a run uses the JSON planner (src/workflows/lazy.ts).
 */

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

const TaggedCallSchema = z.object({
  tool_name: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()).default({}),
});
const TOOL_TAG = /<tool>([\s\S]*?)<\/tool>/g;

/**
 * Reads a wave plan from a reply: a JSON object (also inside a ```json fence), else `<tool>` blocks.
 * The error says what was wrong, in words the model can act on.
 */
export function parsePlan(text: string): Parsed<WavePlan> {
  const tagged = [...text.matchAll(TOOL_TAG)];
  if (tagged.length > 0)
    return parseTagged(
      tagged.map((match) => match[1]),
      text.replace(TOOL_TAG, '').trim(),
    );

  const json = extractJson(text);
  if (json === undefined) {
    return {
      ok: false,
      error: 'the reply is not a JSON object. Reply with one wave_plan JSON object and nothing else.',
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (err) {
    return { ok: false, error: `the reply is not valid JSON (${(err as Error).message}).` };
  }
  const plan = WavePlanSchema.safeParse(withTextAnswer(value));
  if (!plan.success) {
    return {
      ok: false,
      error: `the plan does not match the wave_plan schema: ${describeIssues(plan.error.issues, 'plan')}.`,
    };
  }
  return { ok: true, value: plan.data };
}

/** A plan whose `answer` is a JSON object or array (a run with an output schema), with that answer as JSON text. */
function withTextAnswer(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const answer = (value as { answer?: unknown }).answer;
  if (typeof answer !== 'object' || answer === null) return value;
  return { ...value, answer: JSON.stringify(answer) };
}

/** `<tool>` blocks; the text around them is what the model was thinking, kept as the plan's action. */
function parseTagged(blocks: string[], around: string): Parsed<WavePlan> {
  const tools: WavePlan['tools'] = [];
  for (const [index, block] of blocks.entries()) {
    let value: unknown;
    try {
      value = JSON.parse(block.trim());
    } catch (err) {
      return { ok: false, error: `<tool> block ${index + 1} is not valid JSON (${(err as Error).message}).` };
    }
    const call = TaggedCallSchema.safeParse(value);
    if (!call.success) {
      return { ok: false, error: `<tool> block ${index + 1} needs {"tool_name": string, "arguments": object}.` };
    }
    tools.push({ id: '', tool: call.data.tool_name, args: call.data.arguments });
  }
  return { ok: true, value: { status: 'continue', action: around || 'tool calls', tools, reasoning: '' } };
}

function extractJson(text: string): string | undefined {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(text);
  const body = (fenced ? fenced[1] : text).trim();
  const start = body.indexOf('{');
  const end = body.lastIndexOf('}');
  if (start < 0) return undefined;
  // An object cut short (no closing brace) is still handed to JSON.parse, for its precise error.
  return end > start ? body.slice(start, end + 1) : body.slice(start);
}
