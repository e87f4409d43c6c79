import type { AgentDefinition } from '../../agents/define';
import type { AgentLoopInput } from '../../contract/agent-loop';
import type { OutputSpec } from '../../contract/output/output';
import { outputSchemaProblem } from '../../contract/output/schema';
import type { RunSettings } from '../../contract/settings/resolve';
import { jsonSchemaOf } from '../model/tool-schema';

/**
 * A run's output schema: the input's JSON Schema, else the agent's zod `output` as JSON Schema
 * (`z.toJSONSchema`, as tools' parameters are), with the repairs the run's settings allow.
 * Throws what is wrong, as a message for an `InvalidInput`: a schema ajv cannot compile (a raw
 * Temporal client skips the client's check), a zod schema JSON Schema cannot express, or an output
 * schema in a conversation, which has no single final answer.
 */
export function outputSpecOf(
  input: AgentLoopInput,
  agent: AgentDefinition,
  settings: Pick<RunSettings, 'conversation' | 'outputRepairs'>,
): OutputSpec | undefined {
  if (input.output === null) return undefined;
  const schema = input.output ?? (agent.output ? agentSchema(agent) : undefined);
  if (!schema) return undefined;
  const problem = outputSchemaProblem(schema);
  if (problem) throw new Error(problem);
  if (settings.conversation) throw new Error('a conversation has no single final answer: it takes no output schema');
  return { schema, repairs: settings.outputRepairs };
}

function agentSchema(agent: AgentDefinition): Record<string, unknown> {
  try {
    return jsonSchemaOf(agent.output!);
  } catch (err) {
    throw new Error(`agent "${agent.name}": its output schema has no JSON Schema (${(err as Error).message})`);
  }
}
