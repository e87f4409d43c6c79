import type { AssistantMessage, ChatMessage, ToolCallMessagePart, WaveRecord } from '../contract/agent-loop';
import type { Planner } from '../contract/plan';
import { lazy } from './lazy';

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
  /** `unreadableToolCall`: the reply holds a tool call written as text that could not be read (`ModelCallOutput`). */
  read(reply: AssistantMessage, iteration: number, unreadableToolCall?: string): Step;
  report(wave: WaveRecord): ChatMessage[];
}

export interface PlannerOptions {
  /** What the model said before this run (a hand-over's transcript): whether it planned with `<tool>` blocks. */
  earlier?: readonly ChatMessage[];
}

export function plannerFor(planner: Planner, options: PlannerOptions = {}): PlannerRules {
  return planner === 'json' ? jsonPlanner(options) : nativePlanner;
}

/**
 * Native tool calling: the reply's `tool_calls` are the wave; results go back as tool messages. A
 * reply whose tool call written as text could not be read is never the answer: the model gets a
 * repair turn, counted by the circuit breaker as an unusable reply.
 */
const nativePlanner: PlannerRules = {
  read(reply, _iteration, unreadableToolCall) {
    if (unreadableToolCall) return { kind: 'retry', feedback: unreadableToolCall, text: '' };
    const calls = reply.tool_calls ?? [];
    return calls.length === 0
      ? { kind: 'answer', answer: reply.content ?? '' }
      : { kind: 'wave', calls, text: reply.content ?? '' };
  },
  report(wave) {
    return wave.calls.map((call) => ({ role: 'tool', tool_call_id: call.id, content: resultText(call) }));
  },
};

/**
 * The JSON planner: each reply is a `wave_plan` object, or, for models without JSON mode,
 * text with `<tool>{"tool_name": …, "arguments": …}</tool>` blocks, after which a reply in
 * plain prose is the answer. Results go back as one user message per wave.
 */
function jsonPlanner(options: PlannerOptions): PlannerRules {
  // Whether the model has planned with `<tool>` blocks in this run: it has no JSON mode, and a reply
  // without blocks or JSON is then its answer.
  let tagged = (options.earlier ?? []).some(
    (message) => message.role === 'assistant' && TOOL_TAG.test(message.content ?? ''),
  );
  return { read, report };

  function read(reply: AssistantMessage, iteration: number): Step {
    const text = reply.content ?? '';
    if (TOOL_TAG.test(text)) tagged = true;
    const plan = lazy.planParser().parsePlan(text);
    if (!plan.ok) {
      const prose = tagged && text.trim() !== '' && !text.includes('{');
      if (prose) return { kind: 'answer', answer: text.trim() };
      return { kind: 'retry', feedback: plan.error, text };
    }
    const { tools, status, answer, action } = plan.value;
    if (tools.length === 0) {
      if (status === 'done') return { kind: 'answer', answer: answer ?? action };
      return {
        kind: 'retry',
        text,
        feedback: 'status "continue" needs at least one tool; reply with status "done" and an answer when finished.',
      };
    }
    const seen = new Set<string>();
    const calls = tools.map((call, index): ToolCallMessagePart => {
      let id = call.id.trim() || `w${iteration}-${index + 1}`;
      if (seen.has(id)) id = `${id}-${index + 1}`;
      seen.add(id);
      return { id, type: 'function', function: { name: call.tool, arguments: JSON.stringify(call.args) } };
    });
    return { kind: 'wave', calls, text: answer ?? action };
  }

  function report(wave: WaveRecord): ChatMessage[] {
    const lines = wave.calls.map((call) => `- ${call.id} (${call.tool}): ${resultText(call)}`);
    return [{ role: 'user', content: `Results of wave ${wave.iteration}:\n${lines.join('\n')}` }];
  }
}

const TOOL_TAG = /<tool>/;

function resultText(call: WaveRecord['calls'][number]): string {
  return call.ok ? (call.result ?? '') : `Error: ${call.error}`;
}
