import { handoffToolName } from '../contract/handoff';
import { agentDescription, type AgentDefinition } from './define';

/** The JSON Schema of a handoff call's arguments, as the model sees it: why it hands over, optionally. */
export const HANDOFF_TOOL_PARAMETERS = {
  type: 'object',
  properties: {
    reason: { type: 'string', description: 'Why the conversation goes to this agent, in a sentence.' },
  },
  additionalProperties: false,
} as const;

/**
 * A handoff to `agent` offered to a model as a tool (`handoffs`): `transfer_to_<agent>`, described by
 * the agent's description. A call of it hands the run over to that agent (docs/agents.md#handoffs).
 */
export function handoffToolOf(agent: Pick<AgentDefinition, 'name' | 'description' | 'system'>): {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
} {
  return {
    name: handoffToolName(agent.name),
    description: `Hand this conversation over to the ${agent.name} agent, which goes on with it: ${agentDescription(agent)}`,
    parameters: HANDOFF_TOOL_PARAMETERS,
  };
}
