import { z } from 'zod';

/**
 * Where a run stands in a tree of agents that call agents (docs/agents.md): the run at the top, and
 * every run between it and this one. A run an agent call started gets it from its parent; a person
 * reads it in `waveloop status`, `waveloop pending` and the inbox, to see why a call is asked for.
 */
export interface AgentChain {
  /** The run at the top of the tree: its workflow id and goal. */
  root: { workflowId: string; goal: string };
  /**
   * Each run above this one, the root first: its agent, its workflow id, and its call that started
   * the next run down (the last one started this run).
   */
  parents: AgentChainLink[];
  /** How many agents deep runs of this tree may go (the root's `maxAgentDepth`). */
  maxDepth: number;
  /**
   * What the parent left this run of its budgets: the run's own `maxTokens` and `maxCostUsd` are
   * lowered to these when they are higher or unset.
   */
  budget?: { tokens?: number; costUsd?: number };
}

export interface AgentChainLink {
  agent: string;
  workflowId: string;
  callId: string;
}

export const AgentChainSchema = z.strictObject({
  root: z.strictObject({ workflowId: z.string().min(1), goal: z.string() }),
  parents: z
    .array(z.strictObject({ agent: z.string().min(1), workflowId: z.string().min(1), callId: z.string().min(1) }))
    .min(1, 'a chain names at least the parent that started the run'),
  maxDepth: z.number().int().min(1).max(20),
  budget: z
    .strictObject({ tokens: z.number().int().min(1).optional(), costUsd: z.number().positive().optional() })
    .optional(),
}) satisfies z.ZodType<AgentChain>;

/**
 * The chain in one line, for a person: the root run and its goal, then each parent agent with the
 * call that started the next run: `triage-1 ("Refund order 42") › triage (call c1) › billing (call c2)`.
 */
export function chainLine(chain: AgentChain): string {
  const goal = chain.root.goal.replace(/\s+/g, ' ').trim();
  const shown = goal.length > 80 ? `${goal.slice(0, 79)}…` : goal;
  const links = chain.parents.map((link) => `${link.agent} (call ${link.callId})`);
  return [`${chain.root.workflowId} ("${shown}")`, ...links].join(' › ');
}
