import type { z } from 'zod';
import { webhookUrlProblem } from '../contract/webhooks/url';
import type { ApprovalRule, OnApprovalTimeout } from '../tools/define';

/**
 * A named agent profile, the policies of one agent: its instructions, model, tools and limits.
 * A run picks one with `agent`; fields given in the run's input override the profile's.
 */
export interface AgentDefinition<O = unknown> {
  name: string;
  /** The system prompt. */
  system: string;
  /** Model name; default: the worker's `WAVELOOP_MODEL`, else gpt-4o-mini. */
  model?: string;
  /** Names of the tools the agent may use; default: every registered tool. */
  tools?: string[];
  /** Whether tool calls the model writes as text run as the wave (`recover`, default) or are taken as its answer (`off`). */
  toolCallText?: 'recover' | 'off';
  /**
   * Approval rules by tool name, the agent's own tools and MCP tools (`server__tool`) alike: each
   * replaces the tool's own `requiresApproval` in this agent's runs.
   */
  requiresApproval?: Record<string, ApprovalRule>;
  /** How long a call waits for a decision, in seconds, before `onApprovalTimeout` decides it (default: the tool's). */
  approvalTimeoutSeconds?: number;
  /** What a passed approval deadline decides (default: the tool's, else `deny`). */
  onApprovalTimeout?: OnApprovalTimeout;
  /**
   * The shape of a run's final answer: the answer must be JSON that matches it (the result's
   * `output`, typed `O`), checked against its JSON Schema (`z.toJSONSchema`). Default: free text.
   */
  output?: z.ZodType<O>;
  /**
   * The place of the agent's runs in the task queues (Temporal's Priority API), unless a run says:
   * `priority` 1 (first) to 5 (last), `fairnessKey` (≤ 64 bytes), `fairnessWeight` (docs/flow-control.md).
   */
  priority?: number;
  fairnessKey?: string;
  fairnessWeight?: number;
  /**
   * URLs told when the agent's runs wait for a person and when they end (docs/webhooks.md), besides
   * the run's own and the worker's (`WAVELOOP_WEBHOOK_URL`): http(s) URLs, or `slack:<url>` for a
   * Slack-shaped message (as for hooks.slack.com).
   */
  webhooks?: string[];
  /** Times an answer that does not match `output` goes back to the model before the run ends `invalid_output` (default 2). */
  outputRepairs?: number;
  limits?: {
    /** Iterations of the model loop before the run ends with `max_iterations` (default 20). */
    maxIterations?: number;
    /** Token budget of a run (default: none). */
    maxTokens?: number;
    /** Cost budget of a run in USD (default: none). */
    maxCostUsd?: number;
    /** How long a run may take, in seconds, before it wraps up with an answer (`deadline`; default: none). */
    timeoutSeconds?: number;
    /**
     * The model's context window in tokens, for memory pruning (default: known for OpenAI's models,
     * `src/activities/context-windows.ts`; for others the transcript is compacted when the endpoint says
     * it no longer fits).
     */
    maxContextTokens?: number;
    /** The most tokens one model reply may have (`max_tokens`; default 4,096). */
    maxOutputTokens?: number;
    /** How long one attempt of a model call may take, in seconds (default: the worker's, 10 minutes). */
    modelTimeoutSeconds?: number;
    /** Attempts of a model call before the run fails `ModelUnavailable` (default: the worker's, 8). */
    modelAttempts?: number;
    /** How many tool calls of one wave run at once (default: the worker's, 16; docs/flow-control.md). */
    maxParallelTools?: number;
    /**
     * The most model calls a minute the agent's runs make together, across every worker of the task
     * queue (default: the worker's `WAVELOOP_MODEL_RPM`, else none). Its calls go to a task queue of
     * their own, `<queue>-model-<agent>`, with that rate (docs/flow-control.md).
     */
    modelRpm?: number;
  };
}

/** The type of a run's `output` when it runs as agent `A`: `client.runs.result<AgentOutput<typeof invoices>>(id)`. */
export type AgentOutput<A> = A extends AgentDefinition<infer O> ? O : unknown;

export function defineAgent<O = unknown>(definition: AgentDefinition<O>): AgentDefinition<O> {
  if (definition.name.trim() === '') throw new TypeError('An agent needs a name.');
  for (const url of definition.webhooks ?? []) {
    const problem = webhookUrlProblem(url);
    if (problem) throw new TypeError(`Agent "${definition.name}": ${problem}.`);
  }
  return definition;
}
