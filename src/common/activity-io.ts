import type { AssistantMessage, ChatMessage, Usage } from './contract';
import type { Planner } from './plan';
import type { ModelPrice } from './pricing';

/** What the workflow needs to know about a tool to schedule its calls (no code, no schema). */
export interface ToolInfo {
  name: string;
  timeoutMs: number;
  maximumAttempts: number;
  initialIntervalMs: number;
  backoffCoefficient: number;
  maximumIntervalMs: number;
  loopBreaking: boolean;
  /** Handled by the workflow itself: `question` waits for an answer, `conversation` for the next message. */
  interaction?: 'question' | 'conversation';
  /** Each call waits for `approve` or `deny` before it runs. */
  requiresApproval?: boolean;
  /** Calls run as local activities (`defineTool({ localActivity })`): cheap, read-only tools. */
  localActivity?: boolean;
}

/** `resolveRun`: the agent profile merged with the run's input. */
export interface ResolvedRun {
  agent: string;
  system: string;
  model: string;
  maxIterations: number;
  planner: Planner;
  tools: ToolInfo[];
  budget: { maxTokens?: number; maxCostUsd?: number; price: ModelPrice | null };
  circuitBreaker: number;
  answerTimeoutMs?: number;
  idleTimeoutMs?: number;
  /** After each answer, wait for the next message (`AgentLoopInput.conversation`). */
  conversation?: boolean;
  /** The run continues as new past this many history events (or when Temporal suggests it). */
  maxHistoryEvents?: number;
  /** How long the run may take (`AgentLoopInput.timeoutSeconds`), in milliseconds. */
  timeoutMs?: number;
  /** The model's context window in tokens, when known (`AgentLoopInput.maxContextTokens`). */
  contextTokens?: number;
  /** Model calls run as local activities (`AgentLoopInput.localModelCalls`). */
  localModelCalls?: boolean;
  /** Whether the namespace has waveloop's search attributes, so the run may set them. */
  searchAttributes?: boolean;
}

/** The run's input as a client sent it: `resolveRun` validates it (`parseAgentLoopInput`). */
export type ResolveRunInput = unknown;

/**
 * `callModel`. The transcript is deliberately not part of the input: the activity reads the first
 * `messageCount` messages from the workflow through its `transcript` query, so history records each
 * message once (where it was produced) and grows linearly with the run, not with its square.
 */
export interface ModelCallInput {
  workflowId: string;
  runId: string;
  messageCount: number;
  model: string;
  tools: string[];
  /** `json` asks for a `wave_plan` object instead of offering the tools natively. */
  planner: Planner;
  iteration: number;
  /** Appended to the system prompt for this call only (iteration warnings). */
  systemNote?: string;
  /**
   * What the transcript gained since the run's previous model call: messages [`from`,
   * `messageCount`), i.e. the tool results and any user message after the previous reply. A worker
   * that made the previous call (and so holds messages [0, `from`)) needs no query then; any other
   * falls back to the `transcript` query. These messages are then recorded twice (as tool results
   * and here): history still grows linearly, by a constant factor more. `replyId` is the previous
   * call's (`ModelCallOutput.replyId`): a worker's kept transcript counts only if it ends with the
   * reply the workflow recorded, not one of an attempt that timed out. Sent by workflow code before
   * `delta`; still read, for the model calls such runs scheduled before their worker was upgraded.
   */
  since?: { from: number; messages: ChatMessage[]; replyId: string };
  /**
   * `since`, with each tool result that `runTool` produced replaced by a reference to it (its call,
   * length and hash): the worker that ran the tool kept the result (`ToolResultCache`), so history
   * records it once, in the tool's completion. A worker that lacks one reads the transcript through
   * the query. Sent instead of `since` by newer workflow code; a worker that predates it ignores it
   * and queries. A run's first call sends its opening messages this way (`from` 0, no `replyId`)
   * when they are short.
   */
  delta?: { from: number; messages: Array<ChatMessage | ToolResultRef>; replyId: string };
  /**
   * The whole transcript, for model calls run as local activities: their input is not recorded in
   * history (only their result is), and the worker cannot query a workflow whose task it is running.
   */
  messages?: ChatMessage[];
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
  /** Names this reply, for the run's next call (`ModelCallInput.since`); absent in older histories. */
  replyId?: string;
  /**
   * When the reply arrived (ms since the epoch, the worker's clock). Recorded with the result, so
   * workflow code may pace itself by it and replay the same way; absent in older histories.
   */
  at?: number;
}

/** `runTool`: one call of a wave. */
export interface ToolCallInput {
  workflowId: string;
  toolCallId: string;
  name: string;
  args: Record<string, unknown>;
}

/** The tool's return value, as the model will see it (JSON, or the string itself). */
export interface ToolCallOutput {
  content: string;
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
