import type { Usage } from '../agent-loop';
import { GOAL_TREE_MODEL_ACTIVITIES } from '../goal-tree/activities';

/**
 * Which of waveloop's activities call the model and which runs a tool, and how to read the model,
 * the usage and the call from their input and output, for traces and metrics. Every model-calling
 * activity takes an input with the `model` and returns its `usage`; `callModel` also names the model
 * that answered and the loop's iteration.
 */

/** The activities that make one model call each. */
export const MODEL_CALL_ACTIVITIES: ReadonlySet<string> = new Set([
  'callModel',
  'summarizeTranscript',
  ...GOAL_TREE_MODEL_ACTIVITIES,
]);

/** The activity that runs one tool call (`ToolCallInput` → `ToolCallOutput`). */
export const TOOL_CALL_ACTIVITY = 'runTool';

/** What a model-calling activity was asked: the model, and for `callModel` the iteration and planner. */
export function modelCallInput(args: readonly unknown[]): { model?: string; iteration?: number; planner?: string } {
  const input = args[0] as { model?: unknown; iteration?: unknown; planner?: unknown } | undefined;
  return {
    model: typeof input?.model === 'string' ? input.model : undefined,
    iteration: typeof input?.iteration === 'number' ? input.iteration : undefined,
    planner: typeof input?.planner === 'string' ? input.planner : undefined,
  };
}

/** What a model-calling activity returned: its usage, the model that answered, why it stopped, the reply. */
export function modelCallOutput(output: unknown): {
  usage?: Usage;
  model?: string;
  finishReason?: string;
  message?: unknown;
} {
  const out = output as { usage?: Usage; model?: unknown; finishReason?: unknown; message?: unknown } | undefined;
  return {
    usage: out?.usage && typeof out.usage.promptTokens === 'number' ? out.usage : undefined,
    model: typeof out?.model === 'string' ? out.model : undefined,
    finishReason: typeof out?.finishReason === 'string' ? out.finishReason : undefined,
    message: out?.message,
  };
}

/** The tool call a `runTool` activity was given. */
export function toolCallInput(args: readonly unknown[]): { name: string; toolCallId: string; args: unknown } {
  const input = args[0] as { name?: unknown; toolCallId?: unknown; args?: unknown } | undefined;
  return { name: String(input?.name ?? 'unknown'), toolCallId: String(input?.toolCallId ?? ''), args: input?.args };
}

/** How many tool calls a native reply asks for (its `tool_calls`). */
export function toolCallCount(message: unknown): number {
  const calls = (message as { tool_calls?: unknown } | undefined)?.tool_calls;
  return Array.isArray(calls) ? calls.length : 0;
}
