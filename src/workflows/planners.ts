import { z } from 'zod';
import type { AssistantMessage, ChatMessage, ToolCallMessagePart, WaveRecord } from '../common/contract';
import { WavePlanSchema, type Planner, type WavePlan } from '../common/plan';

/** What the loop does next with a model reply. */
export type Step =
  | { kind: 'answer'; answer: string }
  | { kind: 'wave'; calls: ToolCallMessagePart[]; text: string }
  /** The reply was not a usable plan: `feedback` goes back to the model and the loop asks again. */
  | { kind: 'retry'; feedback: string; text: string };

/**
 * A planner turns model replies into waves and wave results into messages for the model. Both
 * planners drive the same loop, so waves, limits and the result are the same whichever a run uses.
 */
export interface PlannerRules {
  read(reply: AssistantMessage, iteration: number): Step;
  report(wave: WaveRecord): ChatMessage[];
}

export function plannerFor(planner: Planner): PlannerRules {
  return planner === 'json' ? jsonPlanner : nativePlanner;
}

/** Native tool calling: the reply's `tool_calls` are the wave; results go back as tool messages. */
const nativePlanner: PlannerRules = {
  read(reply) {
    const calls = reply.tool_calls ?? [];
    return calls.length === 0 ? { kind: 'answer', answer: reply.content ?? '' } : { kind: 'wave', calls, text: reply.content ?? '' };
  },
  report(wave) {
    return wave.calls.map((call) => ({ role: 'tool', tool_call_id: call.id, content: resultText(call) }));
  },
};

/**
 * The JSON planner (seed 003): each reply is a `wave_plan` object, or, for models without JSON mode,
 * text with `<tool>{"tool_name": …, "arguments": …}</tool>` blocks (seed 004). Results go back as one
 * user message per wave.
 */
const jsonPlanner: PlannerRules = {
  read(reply, iteration) {
    const text = reply.content ?? '';
    const plan = parsePlan(text);
    if (!plan.ok) return { kind: 'retry', feedback: plan.error, text };
    const { tools, status, answer, action } = plan.value;
    if (tools.length === 0) {
      if (status === 'done') return { kind: 'answer', answer: answer ?? action };
      return { kind: 'retry', text, feedback: 'status "continue" needs at least one tool; reply with status "done" and an answer when finished.' };
    }
    const seen = new Set<string>();
    const calls = tools.map((call, index): ToolCallMessagePart => {
      let id = call.id.trim() || `w${iteration}-${index + 1}`;
      if (seen.has(id)) id = `${id}-${index + 1}`;
      seen.add(id);
      return { id, type: 'function', function: { name: call.tool, arguments: JSON.stringify(call.args) } };
    });
    return { kind: 'wave', calls, text: answer ?? action };
  },
  report(wave) {
    const lines = wave.calls.map((call) => `- ${call.id} (${call.tool}): ${resultText(call)}`);
    return [{ role: 'user', content: `Results of wave ${wave.iteration}:\n${lines.join('\n')}` }];
  },
};

function resultText(call: WaveRecord['calls'][number]): string {
  return call.ok ? (call.result ?? '') : `Error: ${call.error}`;
}

type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

const TaggedCallSchema = z.object({ tool_name: z.string().min(1), arguments: z.record(z.string(), z.unknown()).default({}) });
const TOOL_TAG = /<tool>([\s\S]*?)<\/tool>/g;

/**
 * Reads a wave plan from a reply: a JSON object (also inside a ```json fence), else `<tool>` blocks.
 * The error says what was wrong, in words the model can act on.
 */
export function parsePlan(text: string): Parsed<WavePlan> {
  const tagged = [...text.matchAll(TOOL_TAG)];
  if (tagged.length > 0) return parseTagged(tagged.map((match) => match[1]));

  const json = extractJson(text);
  if (json === undefined) {
    return { ok: false, error: 'the reply is not a JSON object. Reply with one wave_plan JSON object and nothing else.' };
  }
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (err) {
    return { ok: false, error: `the reply is not valid JSON (${(err as Error).message}).` };
  }
  const plan = WavePlanSchema.safeParse(value);
  if (!plan.success) {
    const problems = plan.error.issues.map((issue) => `${issue.path.join('.') || 'plan'}: ${issue.message}`);
    return { ok: false, error: `the plan does not match the wave_plan schema: ${problems.join('; ')}.` };
  }
  return { ok: true, value: plan.data };
}

function parseTagged(blocks: string[]): Parsed<WavePlan> {
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
  return { ok: true, value: { status: 'continue', action: 'tool calls', tools, reasoning: '' } };
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
