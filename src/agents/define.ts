import { z } from 'zod';
import { approvalRuleSchema } from '../contract/people/schemas';
import type { LayerSettings } from '../contract/settings/declarations';
import { RENAMED_AGENT_FIELDS } from '../contract/settings/renamed';
import { renamedFieldsShape, settingsShape } from '../contract/settings/schemas';
import type { ApprovalRule } from '../tools/define';

/**
 * A named agent profile, the policies of one agent: its instructions, tools and approval rules, and
 * any run setting (`maxIterations`, `model`, …, each declared once in
 * `src/contract/settings/declarations.ts`), with a run's names at the top level. A run picks one
 * with `agent`; a setting given in the run's input wins over the agent's, which wins over the
 * worker's (`resolveRunSettings`).
 */
export type AgentDefinition<O = unknown> = {
  name: string;
  /** The system prompt. */
  system: string;
  /**
   * What the model of another agent reads when this one is offered to it as a tool (`agents`,
   * docs/agents.md); default: the first line of `system`.
   */
  description?: string;
  /** Names of the tools the agent may use; default: every registered tool. */
  tools?: string[];
  /**
   * Approval rules by tool name, the agent's own tools and MCP tools (`server__tool`) alike: each
   * replaces the tool's own `requiresApproval` in this agent's runs.
   */
  requiresApproval?: Record<string, ApprovalRule>;
  /**
   * The shape of a run's final answer: the answer must be JSON that matches it (the result's
   * `output`, typed `O`), checked against its JSON Schema (`z.toJSONSchema`). Default: free text.
   */
  output?: z.ZodType<O>;
} & LayerSettings<'agent'>;

/** The type of a run's `output` when it runs as agent `A`: `client.runs.result<AgentOutput<typeof invoices>>(id)`. */
export type AgentOutput<A> = A extends AgentDefinition<infer O> ? O : unknown;

const approvalRule = approvalRuleSchema<ApprovalRule>();
const isZodSchema = (value: unknown) =>
  typeof value === 'object' && value !== null && typeof (value as { _zod?: unknown })._zod === 'object';

/** What an agent definition may hold: the checks of `defineAgent` and of a project config's `agents`. */
export const AgentDefinitionSchema = z.strictObject({
  name: z.string().trim().min(1, 'an agent needs a name'),
  system: z.string().min(1, 'an agent needs a system prompt'),
  description: z.string().trim().min(1, 'a description may not be empty').optional(),
  tools: z.array(z.string().min(1)).optional(),
  requiresApproval: z.record(z.string(), approvalRule).optional(),
  output: z.custom<z.ZodType>(isZodSchema, 'output must be a zod schema, such as z.object({ … })').optional(),
  ...settingsShape('agent'),
  ...renamedFieldsShape(RENAMED_AGENT_FIELDS),
});

/** Declares an agent; what is wrong with it (a bad setting, an old field name) throws a `TypeError` naming it. */
export function defineAgent<O = unknown>(definition: AgentDefinition<O>): AgentDefinition<O> {
  const parsed = AgentDefinitionSchema.safeParse(definition);
  if (!parsed.success) {
    const name = typeof definition?.name === 'string' && definition.name.trim() ? ` "${definition.name}"` : '';
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'agent'}: ${issue.message}`);
    throw new TypeError(`Agent${name}: ${problems.join('; ')}.`);
  }
  return definition;
}

/** What a model reads of `agent` when it is offered as a tool: its `description`, else the first line of its system prompt. */
export function agentDescription(agent: Pick<AgentDefinition, 'description' | 'system'>): string {
  return agent.description ?? agent.system.trim().split('\n')[0].trim();
}
