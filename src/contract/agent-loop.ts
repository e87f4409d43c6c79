import { z } from 'zod';
import { PriorityFieldsShape } from './flow/priority-schema';
import type { ForkedFrom } from './fork/fork';
import { ForkSchema } from './fork/schema';
import { parseWorkflowInput } from './issues';
import type { Usage } from './model/usage';
import { OutputSchemaSchema } from './output/schema';
import { PlannerSchema } from './plan';
import { WebhookUrlsSchema } from './webhooks/url';

/**
 * The public contract of the `agentLoop` workflow: what any Temporal client sends and gets back.
 * JSON-safe, shared by workflow, activities, client and tests.
 */

export const AGENT_LOOP_WORKFLOW = 'agentLoop';

export const ToolCallTextSchema = z.enum(['recover', 'off']);
export type ToolCallText = z.infer<typeof ToolCallTextSchema>;

export const AgentLoopInputSchema = z.strictObject({
  goal: z
    .string()
    .trim()
    .min(1, 'goal must be a non-empty string')
    .max(100_000, 'goal is longer than 100,000 characters; put large material in a tool the agent can read'),
  agent: z.string().trim().min(1).optional(),
  system: z.string().optional(),
  model: z.string().trim().min(1).optional(),
  tools: z.array(z.string().trim().min(1)).optional(),
  maxIterations: z.number().int().min(1).max(10_000).optional(),
  /** `native` (default): the model's own tool calls. `json`: one JSON wave plan per turn. */
  planner: PlannerSchema.optional(),
  /** Token budget of the run (prompt + completion, all model calls). */
  maxTokens: z.number().int().positive().optional(),
  /** Cost budget in USD, from the model's price (unknown models cost 0). */
  maxCostUsd: z.number().positive().optional(),
  /**
   * The model's context window in tokens: past 80 % of it the older part of the transcript is
   * summarised (memory pruning). Default: the agent's, else known for OpenAI's models.
   */
  maxContextTokens: z.number().int().min(1_000).optional(),
  /**
   * How long the run may take, in seconds: past it the run wraps up
   * with an answer from what it has (`deadline`), at the next iteration. Default: the agent's, else none.
   */
  timeoutSeconds: z.number().positive().optional(),
  /**
   * The same tool failing with the same error this many times in a row ends the run, and so does the
   * same call (tool and arguments) answered with the same result this many times in a row, after a
   * note to the model that it repeats itself (default 3; 0: never).
   */
  circuitBreaker: z.number().int().min(0).max(100).optional(),
  /** How long `ask_question` waits for an answer before telling the model nobody answered (default: forever). */
  answerTimeoutSeconds: z.number().positive().optional(),
  /** Tools whose calls wait for a person's approval in this run, besides those marked `requiresApproval`. */
  requireApproval: z.array(z.string().trim().min(1)).optional(),
  /**
   * How long a call waits for a decision, in seconds, before `onApprovalTimeout` decides it
   * (default: the agent's, else the tool's, else as long as it takes).
   */
  approvalTimeoutSeconds: z.number().positive().optional(),
  /** What a passed approval deadline decides: `deny` (default) or `approve`. */
  onApprovalTimeout: z.enum(['deny', 'approve']).optional(),
  /**
   * A chat: after each answer the run waits for the person's next message
   * (`send`), which continues it with the whole conversation, or for its end (`end`, or
   * `idleTimeoutSeconds` of silence). Default false: an answer ends the run.
   */
  conversation: z.boolean().optional(),
  /** How long a conversation (`converse`) waits for the next message before it ends (default: 7 days). */
  idleTimeoutSeconds: z.number().positive().optional(),
  /**
   * Model calls run as local activities, inside the workflow task: one trip through the server per
   * iteration less (about half of the engine's time and CPU), at the price of streaming (a local
   * activity has no heartbeats) and of a workflow task held open while the model answers. For fast
   * models and many runs at once (docs/performance.md).
   */
  localModelCalls: z.boolean().optional(),
  /**
   * How many tool calls of one wave run at once; the others start as earlier ones finish, and the
   * results still reach the model in call order. A call waiting for a person holds no place.
   * Default: the agent's, else the worker's (`WAVELOOP_MAX_PARALLEL_TOOLS`), else 16.
   */
  maxParallelTools: z
    .number({ error: 'maxParallelTools must be a whole number of at least 1' })
    .int('maxParallelTools must be a whole number of at least 1')
    .min(1, 'maxParallelTools must be at least 1 (the tool calls of a wave that run at once)')
    .max(1_000)
    .optional(),
  /**
   * The run's place in the task queues (Temporal's Priority API), given to every model call, tool
   * call and child of the run: `priority` 1 (first) to 5 (last), `fairnessKey` (a tenant, ≤ 64
   * bytes) and `fairnessWeight`. Default: the agent's, else what the workflow was started with.
   */
  ...PriorityFieldsShape,
  /** Continue as new (with a compacted transcript) past this many history events (default 2,000). */
  maxHistoryEvents: z.number().int().min(50).max(50_000).optional(),
  /** The most tokens one model reply may have (`max_tokens`; default: the agent's, else 4,096). */
  maxOutputTokens: z.number().int().min(16).max(1_000_000).optional(),
  /**
   * Tool calls a model writes as text in its reply (```` ```json {"name", "arguments"} ````,
   * `<tool_call>…</tool_call>`, …) instead of as the API's tool calls: `recover` (default) runs them
   * as the wave; `off` takes such a reply as the answer.
   */
  toolCallText: ToolCallTextSchema.optional(),
  /** How long one attempt of a model call may take, in seconds (default: the agent's, else the worker's, 10 minutes). */
  modelTimeoutSeconds: z.number().positive().max(86_400).optional(),
  /** Attempts of a model call before the run fails `ModelUnavailable` (default: the agent's, else the worker's, 8). */
  modelAttempts: z.number().int().min(1).max(100).optional(),
  /**
   * The shape of the final answer, a JSON Schema object: the answer must be JSON that matches it
   * (the result's `output`), else it goes back to the model, at most `outputRepairs` times, and the
   * run ends `invalid_output`. Default: the agent's `output`, else free text; `null`: free text
   * whatever the agent says (a goal tree's tool loops, whose answers its synthesis reads).
   */
  output: OutputSchemaSchema.nullable().optional(),
  /** Times an answer that does not match `output` goes back to the model (default: the agent's, else 2). */
  outputRepairs: z.number().int().min(0).max(20).optional(),
  /**
   * URLs told when the run waits for a person and when it ends (docs/webhooks.md), besides its
   * agent's and the worker's (`WAVELOOP_WEBHOOK_URL`): http(s) URLs, or `slack:<url>` for a
   * Slack-shaped message (as for hooks.slack.com).
   */
  webhooks: WebhookUrlsSchema.optional(),
  /**
   * Start from another run's transcript after one of its iterations instead of from the goal: its
   * model replies and tool results are carried over (no tool runs again), then this run goes on
   * with its own agent, model and system prompt, after `fork.message` when given (docs/evals.md#fork).
   * `goal` still names the run (the source's goal, as `waveloop fork` sets it).
   */
  fork: ForkSchema.optional(),
});
export type AgentLoopInput = z.infer<typeof AgentLoopInputSchema>;

/** Validates an `agentLoop` input; what is wrong fails as a non-retryable `InvalidInput` naming each problem. */
export function parseAgentLoopInput(rawInput: unknown): AgentLoopInput {
  return parseWorkflowInput(AgentLoopInputSchema, rawInput, 'agentLoop');
}

/**
 * How a run ended. Every status but `failed` comes with an answer (possibly partial);
 * `invalid_output`: the answers never matched the run's output schema (`outputErrors` says why).
 */
export const RUN_STATUSES = [
  'completed',
  'max_iterations',
  'budget_exhausted',
  'deadline',
  'circuit_open',
  'cancelled',
  'invalid_output',
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export interface ToolCallRecord {
  /** The model's tool call id. */
  id: string;
  tool: string;
  args: Record<string, unknown>;
  ok: boolean;
  /** What the model saw when the call succeeded. */
  result?: string;
  /** What went wrong, when it did not (the model saw `Error: <error>`). */
  error?: string;
  /** How the call was decided, when it waited for approval. */
  approval?: ApprovalRecord;
}

/**
 * Who decided a call that waited for approval, when, and how. `by` is the person's name (the CLI's
 * `--by`, the client's identity) or `timeout` when the call's deadline decided it.
 */
export interface ApprovalRecord {
  decision: 'approved' | 'denied';
  by: string;
  /** When (ISO 8601, the workflow's time). */
  at: string;
  /** Why it was denied (the model read it). */
  reason?: string;
  /** Why the call needed approval, when its rule said. */
  required?: string;
  /** The model's arguments, when the person approved it with edited ones (`args` holds those). */
  originalArgs?: Record<string, unknown>;
}

export interface WaveRecord {
  iteration: number;
  calls: ToolCallRecord[];
}

export { addUsage, ZERO_USAGE, type Usage } from './model/usage';

/** A run's result; `O` is the type of its `output`, when its schema is known (`AgentOutput`). */
export interface AgentLoopResult<O = unknown> {
  status: RunStatus;
  answer: string;
  iterations: number;
  waves: WaveRecord[];
  usage: Usage;
  /** With an output schema: the answer's JSON value, when it matches. */
  output?: O;
  /** With an output schema: why the answer does not match (a run ended `invalid_output`, or by a limit). */
  outputErrors?: string[];
}

/** What the `status` query returns while a run is going and after it ended. */
export interface RunProgress {
  /** `running` (or waiting for a person) until the loop ends, then the result's status, or `failed`. */
  status: 'running' | 'waiting_for_input' | 'waiting_for_approval' | 'waiting_for_message' | RunStatus | 'failed';
  iteration: number;
  maxIterations: number;
  phase: 'starting' | 'model' | 'tools' | 'waiting' | 'done';
  agent: string;
  model: string;
  waves: WaveRecord[];
  /**
   * The wave that is running: its calls that have settled so far, in the order they did. The whole
   * wave joins `waves` when its last call settles.
   */
  settling?: WaveRecord;
  usage: Usage;
  /** Questions (`ask_question`) waiting for the `answer` update, oldest first, each with when it began to wait (ISO 8601). */
  pendingQuestions: Array<{ callId: string; question: string; since: string }>;
  /**
   * Tool calls waiting for `approve` or `deny`, with their arguments, when they began to wait, why
   * (their rule's reason) and until when (their deadline, after which `onTimeout` decides).
   */
  pendingApprovals: Array<{
    callId: string;
    tool: string;
    args: Record<string, unknown>;
    iteration: number;
    since: string;
    reason?: string;
    deadline?: string;
    onTimeout?: 'deny' | 'approve';
  }>;
  /** Set while a conversation waits for the next message (`send`) or its end (`end`), since when. */
  conversation?: { message: string; since: string };
  /** What the model said with its latest tool calls (its "thinking"), for live followers. */
  said?: { iteration: number; text: string };
  /** How many times the run continued as new (each hand-over starts a fresh, compact history). */
  handOvers?: number;
  /**
   * The model rate limit the run's model calls wait for their turn under, when its worker has one
   * (`WAVELOOP_MODEL_RPM`, the agent's `modelRpm`): the calls a minute and the task queue holding them.
   */
  modelRateLimit?: { requestsPerMinute: number; taskQueue: string };
  /** Where the run was forked from, when it was (`AgentLoopInput.fork`). */
  forkedFrom?: ForkedFrom;
}

// Chat messages as the OpenAI Chat Completions API takes them, kept JSON-safe in workflow state.

export interface ToolCallMessagePart {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ToolCallMessagePart[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export type AssistantMessage = Extract<ChatMessage, { role: 'assistant' }>;
