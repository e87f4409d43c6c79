import { agentToolOf } from '../agents/agent-tool';
import type { AgentDefinition } from '../agents/define';
import { handoffToolOf } from '../agents/handoff-tool';
import type { ToolInfo } from '../contract/activity-io';
import { DEFAULT_TOOL_RETRY, DEFAULT_TOOL_TIMEOUT_SECONDS } from '../contract/activity-options';
import type { RunSettings } from '../contract/settings/resolve';
import { TOOL_NAME } from '../tools/define';
import { invalidInput } from './invalid-input';
import type { Registry } from './registry';

/**
 * The agents a run offers its model as tools the workflow answers itself: agents it may call (its
 * `agents` setting; each call a child run) and agents it may hand over to (its `handoffs` setting;
 * `transfer_to_<agent>`). Each is checked when the run is resolved; what is wrong fails with a
 * non-retryable `InvalidInput` that names the setting.
 */

/** What an offered agent's tool is, as the model sees it and as the workflow runs it. */
export interface OfferedTool {
  schema: ReturnType<typeof agentToolOf>;
  info: ToolInfo;
}

interface Offer {
  registry: Registry;
  /** The names of the run's tools (and of what it offers already): an offered tool needs a name of its own. */
  tools: readonly string[];
}

/**
 * The agents the run may call (`agents`). An unknown agent, the run's own agent (a call of it would
 * always be refused: a certain cycle), or an agent named like one of the run's tools is refused.
 */
export function agentToolsOf(agent: AgentDefinition, settings: RunSettings, { registry, tools }: Offer): OfferedTool[] {
  const names = knownAgents('agents', settings.agents, registry);
  if (names.includes(agent.name))
    throw invalidInput(`agent "${agent.name}" offers itself as a tool: every call of it would be a cycle.`);
  const clash = names.find((name) => tools.includes(name));
  if (clash)
    throw invalidInput(
      `agents names "${clash}", which is also one of the run's tools: a tool and an agent offered to one run need different names.`,
    );
  const badName = names.find((name) => !TOOL_NAME.test(name));
  if (badName)
    throw invalidInput(
      `agents names "${badName}", which cannot be a tool's name: only letters, digits, _ and -, at most 64 of them.`,
    );
  return names.map((name) => ({
    schema: agentToolOf(registry.agents.get(name)!),
    info: answeredByWorkflow(name, { agent: true }),
  }));
}

/**
 * The agents the run may hand over to (`handoffs`). An unknown agent, a handoff to the run's own
 * agent, or one whose tool name is already one of the run's tools is refused.
 */
export function handoffToolsOf(
  agent: AgentDefinition,
  settings: RunSettings,
  { registry, tools }: Offer,
): OfferedTool[] {
  const names = knownAgents('handoffs', settings.handoffs, registry);
  if (names.includes(agent.name))
    throw invalidInput(`agent "${agent.name}" hands off to itself: a handoff goes to another agent.`);
  return names.map((name) => {
    const schema = handoffToolOf(registry.agents.get(name)!);
    if (tools.includes(schema.name))
      throw invalidInput(`handoffs names "${name}", whose tool "${schema.name}" is also one of the run's tools.`);
    return { schema, info: answeredByWorkflow(schema.name, { interaction: 'handoff', handoff: name }) };
  });
}

/** The names a setting lists, once each, all of them agents of this worker; else refused, naming the unknown ones. */
function knownAgents(
  setting: 'agents' | 'handoffs',
  listed: readonly string[] | undefined,
  registry: Registry,
): string[] {
  const names = [...new Set(listed ?? [])];
  const unknown = names.filter((name) => !registry.agents.has(name));
  if (unknown.length > 0)
    throw invalidInput(
      `${setting} names ${unknown.map((n) => `"${n}"`).join(', ')}, which ${unknown.length > 1 ? 'are not agents' : 'is not an agent'} ` +
        `of this worker. Known agents: ${[...registry.agents.keys()].join(', ')}.`,
    );
  return names;
}

/**
 * A tool the workflow answers itself (an agent call runs a child run, whose own calls tell their
 * effects; a handoff hands the run over after the wave): no activity of its own, so it only reads.
 */
function answeredByWorkflow(name: string, kind: Pick<ToolInfo, 'agent' | 'interaction' | 'handoff'>): ToolInfo {
  return {
    name,
    timeoutSeconds: DEFAULT_TOOL_TIMEOUT_SECONDS,
    retry: { ...DEFAULT_TOOL_RETRY },
    loopBreaking: false,
    ...kind,
    effect: 'read',
  };
}
