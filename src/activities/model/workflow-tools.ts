import { agentToolOf } from '../../agents/agent-tool';
import { handoffToolOf } from '../../agents/handoff-tool';
import { HANDOFF_TOOL_PREFIX } from '../../contract/handoff';
import type { Registry } from '../registry';

/**
 * A tool the workflow answers itself, as the model sees it: an agent offered as a tool (named after
 * the agent) or a handoff (`transfer_to_<agent>`). Undefined for any other name. A registered tool of
 * the same name wins over these (`resolveRun` refuses a run that would offer both).
 */
export function workflowToolOf(
  name: string,
  registry: Registry,
): { name: string; description: string; parameters: Record<string, unknown> } | undefined {
  const agent = registry.agents.get(name);
  if (agent) return agentToolOf(agent);
  const target = name.startsWith(HANDOFF_TOOL_PREFIX) && registry.agents.get(name.slice(HANDOFF_TOOL_PREFIX.length));
  return target ? handoffToolOf(target) : undefined;
}
