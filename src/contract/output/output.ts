import type { Planner } from '../plan';
import { outputSketch } from './sketch';

/**
 * Typed output: the shape a run's final answer must have (a JSON Schema), what the model is told
 * of it, and the `checkOutput` activity's input and result. Workflow-safe: the validation itself
 * (ajv, zod) runs on the worker (`src/activities/output/`).
 */

/** A run's output schema, as `resolveRun` settled it. */
export interface OutputSpec {
  /** The JSON Schema of the final answer (`AgentLoopInput.output`, else the agent's zod `output`). */
  schema: Record<string, unknown>;
  /** How many times an answer that does not match goes back to the model before the run ends `invalid_output`. */
  repairs: number;
}

/** `checkOutput`: a candidate final answer (a reply's text, `task_complete`'s result) and the schema it must match. */
export interface CheckOutputInput {
  schema: Record<string, unknown>;
  text: string;
}

/** The parsed value when the candidate is JSON that matches, else one line per problem (`output.amount: expected number`). */
export type CheckOutputResult = { ok: true; value: unknown } | { ok: false; errors: string[] };

/** What the system prompt says of the output schema, for `planner`. */
export function outputInstructions(schema: Record<string, unknown>, planner: Planner): string {
  const where =
    planner === 'json'
      ? 'as the "answer" of your final plan (status "done"), or as the `result` of task_complete'
      : 'as the whole text of your final reply (a JSON value, nothing else), or as the `result` of task_complete';
  return [
    '## Your final answer',
    `Your final answer must be a JSON value that matches this JSON Schema; give it ${where}:`,
    JSON.stringify(schema),
    `That is, a value of this shape, with your values in place of the <…> (not the schema itself): ${outputSketch(schema)}`,
  ].join('\n');
}

/** The repair turn: why the final answer was refused, and what to send instead. */
export function outputRepairNote(errors: readonly string[], schema: Record<string, unknown>): string {
  return [
    'Your final answer does not match the required output schema:',
    ...errors.map((error) => `- ${error}`),
    `Reply again with the whole final answer as one JSON value of this shape, your values in place of the <…> (no other text): ${outputSketch(schema)}`,
  ].join('\n');
}
