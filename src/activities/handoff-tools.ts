import type { AgentDefinition } from '../agents/define';
import { handoffToolOf } from '../agents/handoff-tool';
import type { ToolInfo } from '../contract/activity-io';
import { DEFAULT_TOOL_RETRY, DEFAULT_TOOL_TIMEOUT_SECONDS } from '../contract/activity-options';
import type { RunSettings } from '../contract/settings/resolve';
import { invalidInput } from './invalid-input';
import type { Registry } from './registry';

/**
 * The handoffs a run offers (its `handoffs` setting), as the model sees them and as the workflow
 * runs them. An unknown agent, a handoff to the run's own agent, or one whose tool name is already
 * one of the run's tools fails with a non-retryable `InvalidInput`.
 */
export function handoffToolsOf(
  agent: AgentDefinition,
  settings: RunSettings,
  { registry, tools }: { registry: Registry; tools: readonly string[] },
): { schema: ReturnType<typeof handoffToolOf>; info: ToolInfo }[] {
  const names = [...new Set(settings.handoffs ?? [])];
  const unknown = names.filter((name) => !registry.agents.has(name));
  if (unknown.length > 0)
    throw invalidInput(
      `handoffs names ${unknown.map((n) => `"${n}"`).join(', ')}, which ${unknown.length > 1 ? 'are not agents' : 'is not an agent'} ` +
        `of this worker. Known agents: ${[...registry.agents.keys()].join(', ')}.`,
    );
  if (names.includes(agent.name))
    throw invalidInput(`agent "${agent.name}" hands off to itself: a handoff goes to another agent.`);
  return names.map((name) => {
    const schema = handoffToolOf(registry.agents.get(name)!);
    if (tools.includes(schema.name))
      throw invalidInput(`handoffs names "${name}", whose tool "${schema.name}" is also one of the run's tools.`);
    return { schema, info: handoffToolInfo(schema.name, name) };
  });
}

/** A handoff's tool: the workflow answers its calls itself and hands the run over after the wave. */
function handoffToolInfo(name: string, agent: string): ToolInfo {
  return {
    name,
    timeoutSeconds: DEFAULT_TOOL_TIMEOUT_SECONDS,
    retry: { ...DEFAULT_TOOL_RETRY },
    loopBreaking: false,
    interaction: 'handoff',
    handoff: agent,
    effect: 'read',
  };
}
