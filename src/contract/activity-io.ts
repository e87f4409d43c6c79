import type { Priority, RetryPolicy } from '@temporalio/common';
import type { AgentChain } from './agent-chain';
import type { AssistantMessage, ChatMessage, ToolCallText, Usage } from './agent-loop';
import type { ToolEffect } from './effects/effect';
import type { ModelQueue } from './flow/model-queues';
import type { ForkedFrom } from './fork/fork';
import type { ModelPrice } from './model/pricing';
import type { OutputSpec } from './output/output';
import type { ApprovalPolicy } from './people/approvals';
import type { Planner } from './plan';
import type { RunSettings } from './settings/resolve';

/** What the workflow needs to know about a tool to schedule its calls (no code, no schema). */
export interface ToolInfo {
  name: string;
  /** How long one attempt may take. */
  timeoutSeconds: number;
  retry: {
    maximumAttempts: number;
    initialIntervalSeconds: number;
    backoffCoefficient: number;
    maximumIntervalSeconds: number;
  };
  loopBreaking: boolean;
  /**
   * Handled by the workflow itself: `question` waits for an answer, `conversation` for the next
   * message, `handoff` hands the run over to the agent `handoff` names once the wave has settled.
   */
  interaction?: 'question' | 'conversation' | 'handoff';
  /** A handoff's agent (`interaction: 'handoff'`, docs/agents.md#handoffs). */
  handoff?: string;
  /** Set when a call may wait for a person's approval before it runs. */
  approval?: ToolApproval;
  /** Calls run as local activities (`defineTool({ localActivity })`): cheap, read-only tools. */
  localActivity?: boolean;
  /** Parameters shown masked wherever people, logs and traces see the arguments (`defineTool({ sensitive })`). */
  sensitive?: string[];
  /** What a call does to the world (`defineTool({ effect })`, an MCP tool's annotations, the config). */
  effect: ToolEffect;
  /** The tool can tell whether an attempt that was cut off acted (`defineTool({ reconcile })`). */
  reconcile?: boolean;
  /** The tool can reverse a call (`defineTool({ undo })`, docs/effects.md#undo). */
  undo?: boolean;
  /** The tool is the agent of its name: a call runs it as a child run (`agents`, docs/agents.md). */
  agent?: true;
}

/**
 * When a tool's calls wait for approval: `always`, or when the approval `rule` of the tool (or of the
 * run's agent) says so, asked by `runTool` on the worker before the tool runs.
 */
export interface ToolApproval {
  when: 'always' | 'rule';
  /** How long a call waits for a decision before `onTimeout` decides it; none: as long as it takes. */
  timeoutSeconds?: number;
  onTimeout: 'deny' | 'approve';
}

/**
 * `resolveRun`: the run's input merged with its agent profile and the worker's defaults. Its
 * `settings` are every setting resolved once (`resolveRunSettings`), under the names and in the units
 * they are declared with (`src/contract/settings/declarations.ts`); the rest is what the worker
 * works out from them.
 */
export interface ResolvedRun {
  agent: string;
  /** The system prompt, with the planner's and the output's instructions and today's date. */
  system: string;
  tools: ToolInfo[];
  settings: RunSettings;
  /** The model's price, for `maxCostUsd`; null when unknown (it then costs 0). */
  price: ModelPrice | null;
  /** The rate-limited task queue the run's model calls go to; none: the run's own task queue. */
  modelQueue?: ModelQueue;
  /** The run's place in the task queues, for its activities and children; none: they inherit the workflow's. */
  priority?: Priority;
  /** How a model call is retried: the worker's policy with the run's `modelAttempts`. */
  modelRetry: RetryPolicy;
  /** Whether the namespace has waveloop's search attributes, so the run may set them. */
  searchAttributes: boolean;
  /** Whether the worker keeps an audit trail, so the run writes its records (`recordAudit`). */
  audit?: boolean;
  /** The shape the final answer must have, when the run or its agent gives one (`AgentLoopInput.output`). */
  output?: OutputSpec;
  /**
   * Set when the run offers agents as tools or an agent call started it: its goal and its place in
   * the tree (its input's `chain`), from which its own agent calls make their children's, with the
   * webhooks its input named (its children tell them of their waits too).
   */
  tree?: { goal: string; chain?: AgentChain; webhooks?: string[] };
}

/** The run's input as a client sent it: `resolveRun` validates it (`parseAgentLoopInput`). */
export type ResolveRunInput = unknown;

/**
 * `callModel`: one model call of a run. The transcript travels as a `TranscriptSlice`: only what the
 * worker may not hold yet, so the history records each message about once and grows linearly with
 * the run, not with its square.
 */
export interface ModelCallInput {
  workflowId: string;
  runId: string;
  model: string;
  tools: string[];
  /** `json` asks for a `wave_plan` object instead of offering the tools natively. */
  planner: Planner;
  iteration: number;
  /**
   * A note for this call only (the iteration warning), sent as a last user message after the
   * transcript, so the prompt before it stays the same from one call to the next (the endpoint's
   * prompt cache keeps working).
   */
  note?: string;
  /** The most tokens the reply may have (`max_tokens`). */
  maxOutputTokens?: number;
  /** Whether tool calls the model writes as text become the reply's tool calls (default `recover`). */
  toolCallText?: ToolCallText;
  transcript: TranscriptSlice;
}

/**
 * How a model call receives the run's transcript of `count` messages: it carries messages
 * [`from`, `from + messages.length`), and the worker adds what it already holds.
 * - `from` 0: the slice starts the transcript (a run's first call, a call after the transcript was
 *   pruned, every local model call).
 * - otherwise the worker's kept transcript of the run (`TranscriptCache`) must have `from` messages
 *   and end with the reply `after` (`ModelCallOutput.replyId`): a reply of an attempt whose result
 *   never reached the workflow does not count.
 * - a tool result that `runTool` returned travels as a `ToolResultRef`, filled from the worker's
 *   `ToolResultCache`.
 * Whatever the worker cannot complete this way (another worker made the previous call, a restart,
 * a slice that stops short of `count` because its text was too long to record twice) it reads
 * through the run's `transcript` query. A local model call cannot query the workflow whose task runs
 * it, so its slice is always the whole transcript, without references.
 */
export interface TranscriptSlice {
  count: number;
  from: number;
  after?: string;
  messages: Array<ChatMessage | ToolResultRef>;
}

/** A tool message whose content (a `runTool` result) the worker that ran the tool kept. */
export interface ToolResultRef {
  role: 'tool';
  tool_call_id: string;
  result: { chars: number; hash: string };
}

export interface ModelCallOutput {
  message: AssistantMessage;
  usage: Usage;
  finishReason: string;
  /** The model that answered, as the endpoint named it (traces' `gen_ai.response.model`). */
  model?: string;
  /**
   * The model's thinking, when the endpoint sent it apart (`reasoning_content`) or the reply began
   * with a `<think>` block: kept here for whoever reads the call, never in `message`, so it is
   * neither the answer nor sent back to the model.
   */
  reasoning?: string;
  /**
   * Set when the reply names a tool the run offers with arguments, as a call written in its text,
   * but the call could not be read: what the model is told in its repair turn. Such a reply is never
   * the run's answer.
   */
  unreadableToolCall?: string;
  /** Names this reply, for the run's next call (`TranscriptSlice.after`). */
  replyId: string;
  /**
   * When the reply arrived (ms since the epoch, the worker's clock). Recorded with the result, so
   * workflow code may pace itself by it and a replay decides the same way.
   */
  at: number;
}

/** `runTool`: one call of a wave. */
export interface ToolCallInput {
  workflowId: string;
  toolCallId: string;
  name: string;
  args: Record<string, unknown>;
  /** Who started the run (`unknown` when its client did not say): the tool's context says so. */
  startedBy: string;
  /** Ask the approval rule of the tool (or of this agent) first: the tool runs only if it needs no approval. */
  approvalRule?: { agent: string };
  /** Who approved the call, when it waited for approval. */
  approvedBy?: string[];
  /** The model's arguments, when a person approved the call with edited ones (`args`): the model is told of the change. */
  originalArgs?: Record<string, unknown>;
  /**
   * `reconcile`: run the tool's `reconcile` instead of `execute`, after an attempt that may have
   * acted; it answers `{ content }` when the effect happened, `{ absent: true }` when it did not.
   * `dryRun`: a dry run's held-back call: the tool's `dryRun` answers, else a stub (`dryRunStub`).
   */
  mode?: 'reconcile' | 'dryRun';
}

/** `prepareApproval`: a call that waits for approval, whose policy the worker settles (who decides, the preview). */
export interface PrepareApprovalInput {
  workflowId: string;
  toolCallId: string;
  name: string;
  args: Record<string, unknown>;
  agent: string;
  startedBy: string;
}

/**
 * The tool's return value, as the model will see it (JSON, or the string itself); or, when the
 * approval rule was asked and says the call needs approval, how it is decided (the tool did not run);
 * or, from `reconcile`, that the effect did not happen (`absent`).
 */
export type ToolCallOutput = { content: string } | { needsApproval: ApprovalPolicy } | { absent: true };

/** `checkToolArguments`: arguments a person edited, checked against the tool's parameters. */
export interface ToolArgumentsCheck {
  name: string;
  args: Record<string, unknown>;
}

/** `summarizeTranscript`: messages [from, to) of a run's transcript, read through its query. */
export interface SummarizeInput {
  workflowId: string;
  runId: string;
  from: number;
  to: number;
  model: string;
  /** Clip the messages to about this many characters in all, so the summary's own request fits the context window. */
  maxChars?: number;
}

export interface SummarizeOutput {
  summary: string;
  usage: Usage;
}

/**
 * `resolveFork`: a source run's transcript up to and including iteration `iteration`'s tool results,
 * as read from the source's history and its `transcript` query (src/temporal/fork-point.ts).
 */
export interface ForkPoint extends ForkedFrom {
  /** The transcript: the source's system prompt first (a fork replaces it with its own). */
  messages: ChatMessage[];
  /** The source's goal (its input's). */
  goal: string;
}
