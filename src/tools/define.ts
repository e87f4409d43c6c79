import { z } from 'zod';
import { isToolEffect, TOOL_EFFECTS, type ToolEffect } from '../contract/effects/effect';
import type { ApprovalRequirement, CallPreview } from '../contract/people/approvals';
import { RENAMED_RETRY_FIELDS, RENAMED_TOOL_FIELDS, renamedFieldProblems } from '../contract/settings/renamed';

/** What a tool's `execute` receives besides its arguments. */
export interface ToolContext {
  /** Aborted when the run is cancelled or the activity times out; long work should stop when it fires. */
  signal: AbortSignal;
  /**
   * Records liveness (and optional progress details) with Temporal; call it from long-running tools.
   * Does nothing in a local activity (a `read` tool's call, unless it says `localActivity: false`).
   */
  heartbeat(details?: unknown): void;
  /**
   * `<workflowId>/<toolCallId>`: the same for every attempt of one tool call and different for every
   * other call. Side-effecting tools store it with their effect so a retried call takes effect once.
   */
  idempotencyKey: string;
  /** The workflow id of the run that made the call. */
  workflowId: string;
  /** The model's id for this tool call. */
  toolCallId: string;
  /** Who started the run (`unknown` when its client did not say), so a tool can act on their behalf. */
  startedBy: string;
  /** Who approved this call, when it waited for approval, in the order they did. */
  approvedBy?: string[];
}

/** What an approval rule knows of the call besides its arguments. */
export interface ApprovalContext {
  /** The workflow id of the run that made the call. */
  workflowId: string;
  /** The agent the run follows. */
  agent: string;
  /** The tool called. */
  tool: string;
  /** Who started the run (`unknown` when its client did not say). */
  startedBy: string;
}

/** What a rule may answer: `false` (runs at once), `true` or a reason (waits), or who must decide. */
export type ApprovalVerdict = boolean | string | ApprovalRequirement;

/**
 * Whether a call waits for a person before it runs, and who may decide it: `true` or `false` for
 * every call; an object, for every call, naming who must decide (`{ approvers, quorum, fourEyes,
 * reason }`, docs/people-in-the-loop.md); or a function of the call's validated arguments
 * answering any of these (a string: it waits, with that reason). A function runs on the worker,
 * once per call, and its verdict is recorded in the run's history; when it throws or answers
 * something else, the call waits for anyone's decision, with what went wrong as its reason.
 */
export type ApprovalRule<A = Record<string, unknown>> =
  | boolean
  | ApprovalRequirement
  | {
      // Method syntax keeps a rule of a tool's own arguments assignable to a rule of any arguments.
      rule(args: A, context: ApprovalContext): ApprovalVerdict | Promise<ApprovalVerdict>;
    }['rule'];

/** What a tool's `preview` returns: a line of text, or the changes the call would make (and a line). */
export type ToolPreview = string | Omit<CallPreview, 'error'>;

/** What happens to a call whose approval deadline passed: it is denied (default) or runs. */
export type OnApprovalTimeout = 'deny' | 'approve';

/** Retries of a tool's failed attempts (Temporal's retry policy), the intervals in seconds. */
export interface ToolRetry {
  /** Attempts in all (default 3). */
  maximumAttempts?: number;
  /** Seconds before the first retry (default 0.5). */
  initialIntervalSeconds?: number;
  /** How much longer each wait is than the one before (default 2). */
  backoffCoefficient?: number;
  /** The longest wait between attempts, in seconds (default 10). */
  maximumIntervalSeconds?: number;
}

export interface ToolDefinition<P extends z.ZodObject = z.ZodObject, R = unknown> {
  /** The name the model calls the tool by: `^[a-zA-Z0-9_-]{1,64}$`. */
  name: string;
  /** Tells the model what the tool does and when to use it. */
  description: string;
  /**
   * Arguments, validated before `execute` runs; the model sees the JSON Schema made from it unless
   * `inputSchema` is given.
   */
  parameters: P;
  /**
   * The JSON Schema of the arguments as the model sees it, when it comes from elsewhere than
   * `parameters` (an MCP server's `inputSchema`): sent to the model unchanged. `parameters` still
   * validates the arguments before `execute` runs, so it should accept whatever this schema does.
   */
  inputSchema?: Record<string, unknown>;
  /** Does the work. The return value reaches the model as JSON (a string is passed as is). */
  execute(args: z.infer<P>, context: ToolContext): Promise<R> | R;
  /**
   * What a call does to the world (default `write`): `read` changes nothing and is retried freely;
   * `idempotent` is safe to repeat with the same `idempotencyKey`; a `write` attempt that may have
   * acted before it was cut off is not retried blindly (`reconcile`, docs/effects.md).
   */
  effect?: ToolEffect;
  /**
   * For a `write` tool, after an attempt that may have acted (it timed out, or its worker died):
   * finds out whether the effect happened, by `context.idempotencyKey` or the arguments. Returns the
   * call's result when it did (the call completes with it), `undefined` when it did not (the call
   * runs again). Without it such a call waits for a person to say which.
   */
  reconcile?(args: z.infer<P>, context: ToolContext): Promise<R | undefined> | R | undefined;
  /**
   * What a call answers in a dry run instead of running, for a tool whose effect is not `read`
   * (default: a line telling the model the call was held back, with its arguments).
   */
  dryRun?(args: z.infer<P>, context: ToolContext): Promise<R> | R;
  /**
   * Reverses one call that succeeded (a refund, a field's old value restored, a correction sent),
   * when a person undoes the run (`waveloop undo`, docs/effects.md#undo). It gets the call's
   * arguments (as the call ran with them), its `result` as the run recorded it (the text the model
   * read: a string result as is, any other value as JSON), and a context whose `idempotencyKey` is
   * `<workflowId>/<toolCallId>/undo`, the same for every attempt of this undo. It runs as an activity
   * with the tool's `timeoutSeconds` and `retry`; what it returns (a line, or a value shown as JSON)
   * says what it did. A `ToolError` is not retried. Refused on a `read` tool.
   */
  undo?(args: z.infer<P>, result: string, context: ToolContext): Promise<unknown> | unknown;
  /** How long one attempt may take, in seconds (default 60). */
  timeoutSeconds?: number;
  /** Retries of failed attempts (default: 3 attempts); validation errors are never retried. */
  retry?: ToolRetry;
  /** Whether a call to this tool waits for a person's approval before it runs (default false; see `ApprovalRule`). */
  requiresApproval?: ApprovalRule<z.infer<P>>;
  /** How long a call waits for a decision, in seconds, before `onApprovalTimeout` decides it (default: as long as it takes). */
  approvalTimeoutSeconds?: number;
  /** What a passed approval deadline decides (default `deny`). */
  onApprovalTimeout?: OnApprovalTimeout;
  /**
   * What a person should see before deciding a call that waits for approval, such as the record it
   * would change, before → after. It runs on the worker when the call begins to wait, at most
   * `PREVIEW_TIMEOUT_SECONDS`; its result is recorded in the run's history, and an error or a
   * timeout is shown instead (the call waits all the same).
   */
  preview?(args: z.infer<P>, context: ApprovalContext): ToolPreview | Promise<ToolPreview>;
  /** A successful call ends the model loop, and its result becomes the run's answer. */
  loopBreaking?: boolean;
  /**
   * The workflow handles the call itself instead of running `execute`: `question` waits for a
   * person's answer (`ask_question`), `conversation` ends the turn and waits for the next message.
   */
  interaction?: 'question' | 'conversation';
  /**
   * Run the tool as a local activity: in the worker that runs the workflow, within the workflow
   * task that received the model's reply, recorded as a marker: one activity and one workflow task
   * fewer per iteration. For quick reads: a local activity is retried by the workflow, does not
   * heartbeat, and runs again on another worker if its worker dies before the task completes.
   * Default: true for a `read` tool, false otherwise; a read that may take longer than a few seconds,
   * or heartbeats, says `false` (docs/performance.md#read-tools-run-as-local-activities).
   */
  localActivity?: boolean;
  /**
   * Parameters whose values people, logs and traces must not see (a card number, an IBAN, a
   * password): top-level fields of `parameters`. The inbox, `pending`, `show`, the event stream,
   * webhooks, audit records, spans and the Web UI's summaries and details show them masked
   * (`•••• 1234`); `execute` and the model get the real value (docs/security.md).
   */
  sensitive?: ReadonlyArray<keyof z.infer<P> & string>;
}

/** A tool with its types erased, as the registry and the activities hold it. */
export type AnyTool = ToolDefinition<z.ZodObject, unknown>;

/** The names the model API accepts for a tool. */
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Declares a tool. The argument type of `execute` is inferred from `parameters`; a name the
 * OpenAI API would reject, an option's old name (`timeoutMs`), an unknown `effect`, an `undo` on a
 * `read` tool, or a `sensitive` field that is not a parameter throws here, at definition time, rather than at the first model call.
 */
export function defineTool<P extends z.ZodObject, R>(definition: ToolDefinition<P, R>): ToolDefinition<P, R> {
  if (!TOOL_NAME.test(definition.name)) {
    throw new TypeError(`Tool name "${definition.name}" must match ${TOOL_NAME} (letters, digits, _ and -).`);
  }
  const renamed = [
    ...renamedFieldProblems(definition, RENAMED_TOOL_FIELDS),
    ...renamedFieldProblems(definition.retry, RENAMED_RETRY_FIELDS).map((problem) => `retry: ${problem}`),
  ];
  if (renamed.length) throw new TypeError(`Tool "${definition.name}": ${renamed.join('; ')}.`);
  if (definition.effect !== undefined && !isToolEffect(definition.effect))
    throw new TypeError(
      `Tool "${definition.name}": effect ${JSON.stringify(definition.effect)} is not one of ${TOOL_EFFECTS.map((e) => `"${e}"`).join(', ')}.`,
    );
  if (definition.undo && definition.effect === 'read')
    throw new TypeError(`Tool "${definition.name}": a read tool changes nothing, so it has no undo.`);
  const fields = Object.keys(definition.parameters.shape);
  const unknown = (definition.sensitive ?? []).filter((field) => !fields.includes(field));
  if (unknown.length)
    throw new TypeError(
      `Tool "${definition.name}": sensitive ${unknown.map((f) => `"${f}"`).join(', ')} ${unknown.length > 1 ? 'are not among' : 'is not one of'} its parameters (${fields.join(', ') || 'none'}).`,
    );
  return definition;
}

/**
 * A tool failure that retrying cannot fix (a missing record, a refused operation): the model sees
 * the message at once. Any other error thrown by `execute` is retried per the tool's `retry` first.
 */
export class ToolError extends Error {
  override name = 'ToolError';
}
