import { z } from 'zod';
import { AgentDefinitionSchema, type AgentDefinition } from '../agents/define';
import { isToolEffect, TOOL_EFFECTS, type ToolEffect } from '../contract/effects/effect';
import { BUILTIN_SCORERS, type ScorerDefinition } from '../contract/eval/scorer';
import { handoffToolName } from '../contract/handoff';
import { describeIssues } from '../contract/issues';
import { PersonSchema, type Person } from '../contract/people/people';
import { approvalRuleSchema } from '../contract/people/schemas';
import { RENAMED_RETRY_FIELDS, RENAMED_TOOL_FIELDS } from '../contract/settings/renamed';
import { renamedFieldsShape, settingsShape } from '../contract/settings/schemas';
import { mcpServersSchema, type McpServers } from '../mcp/server-config';
import { TOOL_NAME, type AnyTool, type ApprovalRule } from '../tools/define';

/** A project's configuration once it is valid, with its defaults filled in. */
export interface ValidProjectConfig {
  tools: AnyTool[];
  agents: AgentDefinition[];
  mcpServers: McpServers;
  scorers: ScorerDefinition[];
  demo: boolean;
  people: Person[];
  /** Tools' effects by tool name, over what each tool says (`defineConfig({ effects })`). */
  effects: Record<string, ToolEffect>;
}

/** The tool and agent names a project's own cannot take, because the worker offers them already. */
export interface ReservedNames {
  /** The loop's own tools, always offered. */
  builtinTools: readonly string[];
  /** The demo toolkit's tools and agents, offered with `demo: true`. */
  demoTools: readonly string[];
  demoAgents: readonly string[];
}

const isZodObject = (value: unknown) =>
  typeof value === 'object' &&
  value !== null &&
  (value as { _zod?: { def?: { type?: unknown } } })._zod?.def?.type === 'object';

const approvalRule = approvalRuleSchema<ApprovalRule>();

const toolSchema = z
  .strictObject({
    name: z
      .string()
      .regex(
        TOOL_NAME,
        'a tool name may have only letters, digits, _ and -, at most 64 of them (the model API refuses others)',
      ),
    description: z.string().min(1, 'a tool needs a description: it tells the model what the tool does'),
    parameters: z.custom<z.ZodObject>(isZodObject, 'parameters must be a zod object schema, z.object({ … })'),
    execute: z.custom<AnyTool['execute']>((value) => typeof value === 'function', 'execute must be a function'),
    timeoutSeconds: z.number().positive().optional(),
    retry: z
      .strictObject({
        maximumAttempts: z.number().int().positive().optional(),
        initialIntervalSeconds: z.number().positive().optional(),
        backoffCoefficient: z.number().min(1).optional(),
        maximumIntervalSeconds: z.number().positive().optional(),
        ...renamedFieldsShape(RENAMED_RETRY_FIELDS),
      })
      .optional(),
    requiresApproval: approvalRule.optional(),
    ...settingsShape('tool'),
    ...renamedFieldsShape(RENAMED_TOOL_FIELDS),
    loopBreaking: z.boolean().optional(),
    interaction: z.enum(['question', 'conversation']).optional(),
    localActivity: z.boolean().optional(),
    sensitive: z.array(z.string()).optional(),
    preview: z
      .custom<AnyTool['preview']>((value) => typeof value === 'function', 'preview must be a function')
      .optional(),
    effect: z.unknown().optional(),
    reconcile: z
      .custom<AnyTool['reconcile']>((value) => typeof value === 'function', 'reconcile must be a function')
      .optional(),
    dryRun: z.custom<AnyTool['dryRun']>((value) => typeof value === 'function', 'dryRun must be a function').optional(),
    undo: z.custom<AnyTool['undo']>((value) => typeof value === 'function', 'undo must be a function').optional(),
  })
  .superRefine((tool, ctx) => {
    // Here rather than on the field, so that the message names the tool.
    if (tool.effect !== undefined && !isToolEffect(tool.effect))
      ctx.addIssue({ code: 'custom', path: ['effect'], message: `tool "${tool.name}": ${effectProblem(tool.effect)}` });
    if (tool.undo && tool.effect === 'read')
      ctx.addIssue({ code: 'custom', path: ['undo'], message: `tool "${tool.name}": a read tool has no undo` });
  });

/** Why `value` is not an effect, for a person. */
function effectProblem(value: unknown): string {
  return `effect ${JSON.stringify(value)} is not one of ${TOOL_EFFECTS.map((effect) => `"${effect}"`).join(', ')}`;
}

/**
 * The config's `effects`: a tool's effect by its name, over what the tool says (its `defineTool`, an
 * MCP server's annotations). An unknown effect is refused naming the tool.
 */
const effectsSchema = z.record(z.string(), z.unknown()).superRefine((effects, ctx) => {
  for (const [tool, effect] of Object.entries(effects))
    if (!isToolEffect(effect)) ctx.addIssue({ code: 'custom', path: [tool], message: effectProblem(effect) });
}) as unknown as z.ZodType<Record<string, ToolEffect>>;

const scorerSchema = z.strictObject({
  name: z
    .string()
    .regex(/^[A-Za-z_][\w-]{0,63}$/, 'a scorer name may have only letters, digits, _ and -, at most 64 of them')
    .refine((name) => !(BUILTIN_SCORERS as readonly string[]).includes(name), {
      error: `a scorer cannot take a built-in scorer's name (${BUILTIN_SCORERS.join(', ')})`,
    }),
  score: z.custom<ScorerDefinition['score']>((value) => typeof value === 'function', 'score must be a function'),
});

const projectSchema = z.strictObject(
  {
    tools: z.array(toolSchema).default([]),
    agents: z.array(AgentDefinitionSchema).default([]),
    mcpServers: mcpServersSchema.default({}),
    scorers: z.array(scorerSchema).default([]),
    demo: z.boolean().default(false),
    people: z.array(PersonSchema).default([]),
    effects: effectsSchema.default({}),
  },
  {
    error: (issue) =>
      issue.code === 'invalid_type'
        ? 'the config must export an object: export default defineConfig({ tools, agents, mcpServers })'
        : undefined,
  },
);

/**
 * Checks what a config file exports and returns it with defaults, or the one line that says what
 * is wrong: a malformed tool, agent or MCP server, two tools or agents with one name (including the
 * worker's own), an agent naming a tool nobody offers, an unknown effect (named by its tool), or
 * `effects` naming a tool nobody offers, an agent offering an unknown agent or itself as a tool
 * (`agentToolProblem`). An agent and `effects` may name an MCP server's tool
 * (`<server>__<tool>`) before the server is reached; the worker checks those names when it starts.
 */
export function validateProjectConfig(
  exported: unknown,
  reserved: ReservedNames,
): { config: ValidProjectConfig } | { problem: string } {
  const parsed = projectSchema.safeParse(exported);
  if (!parsed.success) return { problem: describeIssues(parsed.error.issues, 'config') };
  const config = parsed.data as ValidProjectConfig;
  const scorers = config.scorers.map((scorer) => scorer.name);
  const twice = scorers.find((name, i) => scorers.indexOf(name) !== i);
  if (twice) return { problem: `two scorers are named "${twice}"` };
  const problem = nameProblem(config, reserved);
  return problem ? { problem } : { config };
}

function nameProblem(config: ValidProjectConfig, reserved: ReservedNames): string | undefined {
  // Each name offered, with what offers it when that is not the config itself.
  const offered = new Map<string, string | undefined>();
  for (const name of reserved.builtinTools) offered.set(name, ' (it is a built-in tool)');
  if (config.demo) for (const name of reserved.demoTools) offered.set(name, ' (it is a demo tool, demo: true)');
  for (const tool of config.tools) {
    if (offered.has(tool.name)) return `two tools are named "${tool.name}"${offered.get(tool.name) ?? ''}`;
    offered.set(tool.name, undefined);
  }

  const agents = new Set(config.demo ? reserved.demoAgents : []);
  for (const agent of config.agents) {
    if (agents.has(agent.name)) return `two agents are named "${agent.name}"`;
    agents.add(agent.name);
    const isOffered = (name: string) => offered.has(name) || isMcpToolOf(name, config.mcpServers);
    const unknown = (agent.tools ?? []).find((name) => !isOffered(name));
    const ruled = Object.keys(agent.requiresApproval ?? {}).find((name) => !isOffered(name));
    if (unknown || ruled) {
      const what = unknown ? `names the tool "${unknown}"` : `has an approval rule for the tool "${ruled}"`;
      return `agent "${agent.name}" ${what}, which is not offered (tools: ${[...offered.keys()].join(', ')}${
        Object.keys(config.mcpServers).length
          ? `, and <server>__<tool> of the MCP servers ${Object.keys(config.mcpServers).join(', ')}`
          : ''
      })`;
    }
  }
  const agentProblem = agentToolProblem(config, agents, offered);
  if (agentProblem) return agentProblem;
  const notOffered = Object.keys(config.effects).find(
    (name) => !offered.has(name) && !isMcpToolOf(name, config.mcpServers),
  );
  const readWithUndo = config.tools.find((tool) => tool.undo && config.effects[tool.name] === 'read');
  if (readWithUndo) return `effects makes the tool "${readWithUndo.name}" read, and a read tool has no undo`;
  if (notOffered)
    return `effects names the tool "${notOffered}", which is not offered (tools: ${[...offered.keys()].join(', ')}${
      Object.keys(config.mcpServers).length
        ? `, and <server>__<tool> of the MCP servers ${Object.keys(config.mcpServers).join(', ')}`
        : ''
    })`;
  return undefined;
}

function isMcpToolOf(name: string, servers: McpServers): boolean {
  const cut = name.indexOf('__');
  return cut > 0 && Object.hasOwn(servers, name.slice(0, cut));
}

/**
 * What is wrong with the agents the config's agents offer as tools (`agents`, docs/agents.md): an
 * unknown agent, an agent offering itself (a cycle certain from the config: every call of it would
 * be refused), or an agent whose name cannot be a tool's or is a tool's already; and with their
 * `handoffs`: an unknown agent, a handoff to itself, or a `transfer_to_<agent>` a tool is named.
 */
function agentToolProblem(
  config: ValidProjectConfig,
  known: ReadonlySet<string>,
  offered: ReadonlyMap<string, string | undefined>,
): string | undefined {
  const agents = new Set([...known, 'default']);
  for (const agent of config.agents) {
    for (const name of agent.agents ?? []) {
      if (!agents.has(name))
        return `agent "${agent.name}" offers the agent "${name}", which is not an agent (agents: ${[...agents].join(', ')})`;
      if (name === agent.name)
        return `agent "${agent.name}" offers itself as a tool: every call of it would be a cycle, and be refused`;
      if (!TOOL_NAME.test(name))
        return `agent "${agent.name}" offers the agent "${name}" as a tool, but a tool name may have only letters, digits, _ and -, at most 64 of them`;
      if (offered.has(name))
        return `agent "${agent.name}" offers the agent "${name}" as a tool, but a tool has that name already${offered.get(name) ?? ''}`;
    }
    for (const name of agent.handoffs ?? []) {
      if (!agents.has(name))
        return `agent "${agent.name}" hands off to "${name}", which is not an agent (agents: ${[...agents].join(', ')})`;
      if (name === agent.name) return `agent "${agent.name}" hands off to itself: a handoff goes to another agent`;
      if (offered.has(handoffToolName(name)))
        return `agent "${agent.name}" hands off to "${name}", but a tool is named ${handoffToolName(name)} already`;
    }
  }
  return undefined;
}
