import { z } from 'zod';
import { AgentChainSchema, type AgentChain } from './agent-chain';
import type { HeldBackCall } from './effects/dry-run';
import type { CallOutcome, PendingOutcome } from './effects/outcome';
import type { ForkedFrom } from './fork/fork';
import { ForkSchema } from './fork/schema';
import type { HandoffRecord } from './handoff';
import { parseWorkflowInput } from './issues';
import type { Usage } from './model/usage';
import { OutputSchemaSchema } from './output/schema';
import type { ApprovalPolicy, ApprovalVote } from './people/approvals';
import type { SettingValue } from './settings/declarations';
import { RENAMED_RUN_FIELDS } from './settings/renamed';
import { renamedFieldsShape, settingsShape } from './settings/schemas';

/**
 * The public contract of the `agentLoop` workflow: what any Temporal client sends and gets back.
 * JSON-safe, shared by workflow, activities, client and tests.
 */

export { AGENT_LOOP_WORKFLOW } from './workflow-names';

export type ToolCallText = SettingValue<'toolCallText'>;

/**
 * A run's input: the task (`goal`, `agent`, `system`, `tools`, `output`, `fork`) and its settings,
 * each declared once in `./settings/declarations` (docs/contract.md has their table). A field that
 * was renamed is refused with its new name.
 */
export const AgentLoopInputSchema = z.strictObject({
  goal: z
    .string()
    .trim()
    .min(1, 'goal must be a non-empty string')
    .max(100_000, 'goal is longer than 100,000 characters; put large material in a tool the agent can read'),
  /** The agent profile the run runs as (default: `default`). */
  agent: z.string().trim().min(1).optional(),
  /** The system prompt, instead of the agent's. */
  system: z.string().optional(),
  /** The tool allowlist, instead of the agent's (default: every tool the worker offers). */
  tools: z.array(z.string().trim().min(1)).optional(),
  /**
   * The shape of the final answer, a JSON Schema object: the answer must be JSON that matches it
   * (the result's `output`), else it goes back to the model, at most `outputRepairs` times, and the
   * run ends `invalid_output`. Default: the agent's `output`, else free text; `null`: free text
   * whatever the agent says (a goal tree's tool loops, whose answers its synthesis reads).
   */
  output: OutputSchemaSchema.nullable().optional(),
  /**
   * Start from another run's transcript after one of its iterations instead of from the goal: its
   * model replies and tool results are carried over (no tool runs again), then this run goes on
   * with its own agent, model and system prompt, after `fork.message` when given (docs/evals.md#fork).
   * `goal` still names the run (the source's goal, as `waveloop fork` sets it).
   */
  fork: ForkSchema.optional(),
  /**
   * Who started the run: the person of the token (`waveloop serve`), `--by` or the OS user (the
   * CLI), the client's `identity`. Absent: `unknown` (a raw Temporal client that did not say).
   */
  startedBy: z.string().trim().min(1, 'startedBy must name someone').max(200).optional(),
  /**
   * Set by the run whose agent call started this one (docs/agents.md): the root run and each parent
   * agent with its call, the tree's depth limit and what the parent left of its budgets.
   */
  chain: AgentChainSchema.optional(),
  ...settingsShape('run'),
  ...renamedFieldsShape(RENAMED_RUN_FIELDS),
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

/** The statuses of a run that waits for a person: for an answer, a decision, the next message. */
export const WAITING_STATES = ['waiting_for_input', 'waiting_for_approval', 'waiting_for_message'] as const;

/**
 * Every status a run has (its `status` query and its `WaveloopStatus`): `running`, one of
 * `WAITING_STATES`, then how it ended (`RUN_STATUSES`) or `failed`. The one list of them.
 */
export const RUN_STATES = ['running', ...WAITING_STATES, ...RUN_STATUSES, 'failed'] as const;
export type RunState = (typeof RUN_STATES)[number];

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
  /**
   * How the call was settled when an attempt of its `write` tool may have acted before it was cut
   * off (docs/effects.md#unknown-outcomes): reconciled, confirmed by a person, run again, or given up.
   */
  outcome?: CallOutcome;
  /**
   * Set in a dry run when the call was held back (its tool's effect is not `read`, or it would have
   * waited for approval): it did not run, and `result` is its tool's `dryRun` answer or a stub.
   */
  heldBack?: true;
  /** Set when the call was an agent's (docs/agents.md): the child run it started, and how that ended. */
  agentRun?: AgentRunRecord;
}

/** The child run an agent call started: its workflow id and agent, and how it ended (absent: it failed or never started). */
export interface AgentRunRecord {
  workflowId: string;
  agent: string;
  status?: RunStatus;
  usage?: Usage;
}

/**
 * Who decided a call that waited for approval, when, and how. `by` is the person's name (the CLI's
 * `--by`, the client's identity) or `timeout` when the call's deadline decided it; for a quorum,
 * the person whose approval completed it, and `approvals` has everyone's.
 */
export interface ApprovalRecord {
  decision: 'approved' | 'denied';
  by: string;
  /** When (ISO 8601, the workflow's time). */
  at: string;
  /** Every approval that counted, in the order given, each with when (of an approved call). */
  approvals?: ApprovalVote[];
  /** Why it was denied (the model read it). */
  reason?: string;
  /** Why the call needed approval, when its rule said. */
  required?: string;
  /** The model's arguments, when the person approved it with edited ones (`args` holds those). */
  originalArgs?: Record<string, unknown>;
}

export interface WaveRecord {
  iteration: number;
  /** What the model said along with the wave's calls, when it said something besides them. */
  said?: string;
  calls: ToolCallRecord[];
}

/**
 * The wave that runs now: the calls settled so far (`calls`), and the calls of the reply still open,
 * in call order; an open agent call names the child run it starts (docs/agents.md).
 */
export interface SettlingWave extends WaveRecord {
  open: Array<{ id: string; tool: string; agentRun?: string }>;
}

export { addUsage, ZERO_USAGE, type Usage } from './model/usage';
export type { AgentChain, AgentChainLink } from './agent-chain';

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
  /** Set when the run was a dry run (`AgentLoopInput.dryRun`): nothing but `read` tools ran. */
  dryRun?: true;
  /** In a dry run: every call held back, in the order of the waves (docs/effects.md#dry-runs). */
  heldBack?: HeldBackCall[];
  /** The run's handoffs, in order, when its agents handed over (docs/agents.md#handoffs). */
  handoffs?: HandoffRecord[];
  /** Where the run stood in a tree of agents, when an agent call started it: the root and each parent (docs/agents.md). */
  chain?: AgentChain;
}

/**
 * A tool call waiting for `approve` or `deny`: its arguments (a person's edit, with the model's as
 * `originalArgs`), when it began to wait, until when (its deadline, after which `onTimeout`
 * decides), how it is decided (`ApprovalPolicy`: who may, how many, the preview) and the approvals
 * it has so far.
 */
export interface PendingApproval extends ApprovalPolicy {
  callId: string;
  tool: string;
  args: Record<string, unknown>;
  originalArgs?: Record<string, unknown>;
  iteration: number;
  since: string;
  deadline?: string;
  onTimeout?: 'deny' | 'approve';
  approvals: ApprovalVote[];
}

/** What the `status` query returns while a run is going and after it ended. */
export interface RunProgress {
  /** `running` (or waiting for a person) until the loop ends, then the result's status, or `failed`. */
  status: RunState;
  iteration: number;
  maxIterations: number;
  phase: 'starting' | 'model' | 'tools' | 'waiting' | 'done';
  agent: string;
  model: string;
  waves: WaveRecord[];
  /**
   * The wave that is running: its calls that have settled so far, in the order they did, and those
   * still open (running, or waiting for a person). The whole wave joins `waves` when its last call
   * settles.
   */
  settling?: SettlingWave;
  usage: Usage;
  /** Questions (`ask_question`) waiting for the `answer` update, oldest first, each with when it began to wait (ISO 8601). */
  pendingQuestions: Array<{ callId: string; question: string; since: string }>;
  /**
   * Tool calls waiting for `approve` or `deny`, with their arguments, when they began to wait, why
   * (their rule's reason) and until when (their deadline, after which `onTimeout` decides).
   */
  pendingApprovals: PendingApproval[];
  /**
   * `write` calls whose attempt may have acted, waiting for a person to say whether it did (absent:
   * none); the run's status is then `waiting_for_approval` (docs/effects.md#unknown-outcomes).
   */
  pendingOutcomes?: PendingOutcome[];
  /** Where the run stands in a tree of agents, when an agent call started it: the root and each parent (docs/agents.md). */
  chain?: AgentChain;
  /** The run's handoffs so far (docs/agents.md#handoffs); `agent` is the agent it runs as now. */
  handoffs?: HandoffRecord[];
  /** Who started the run (`AgentLoopInput.startedBy`, else `unknown`), and when its chain started (ISO 8601). */
  startedBy: string;
  startedAt: string;
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
  /** Set when the run is a dry run: only `read` tools run (docs/effects.md#dry-runs). */
  dryRun?: true;
  /** A record of the run's audit trail the store has not taken yet: the run waits for it before it ends. */
  auditWaiting?: AuditWaiting;
}

/** The audit store did not take a record (full, unreachable): since when, which record, the last error. */
export interface AuditWaiting {
  since: string;
  record: string;
  error: string;
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
