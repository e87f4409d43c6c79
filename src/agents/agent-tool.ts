import { agentDescription, type AgentDefinition } from './define';

/**
 * The JSON Schema of an agent call's arguments, as the model sees it: the task for the agent. The
 * workflow checks a call's arguments against the same shape (src/workflows/agent-calls.ts).
 */
export const AGENT_TOOL_PARAMETERS = {
  type: 'object',
  properties: {
    task: {
      type: 'string',
      description: 'What the agent is to do, with everything it needs to know: it sees nothing else of this run.',
    },
  },
  required: ['task'],
  additionalProperties: false,
} as const;

/** An agent offered to a model as a tool (`agents`): named after the agent, with its description, taking a task. */
export function agentToolOf(agent: Pick<AgentDefinition, 'name' | 'description' | 'system'>): {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
} {
  return { name: agent.name, description: agentDescription(agent), parameters: AGENT_TOOL_PARAMETERS };
}
