import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { ChatMessage, RunProgress } from './agent-loop';
import type { ApprovalVote } from './people/approvals';

/**
 * The queries and updates of an `agentLoop` run, defined once: the workflow handles them
 * (src/workflows), the client API, the worker and the tests call them. `defineQuery`/`defineUpdate`
 * only name a message and its types, so code outside workflows may import them.
 */

/** Where the run is: iteration, phase, waves so far, token usage. Answers after the run ended too. */
export const statusQuery = defineQuery<RunProgress>('status');

/**
 * The conversation with the model so far, in Chat Completions message form, as people see it: the
 * arguments of the model's tool calls with their tools' sensitive values masked (`maskToolCalls`).
 */
export const transcriptQuery = defineQuery<ChatMessage[]>('transcript');

/**
 * The conversation as the model sees it, sensitive values in clear: for workers (a model call's
 * context, a fork's start), never shown to people.
 */
export const modelTranscriptQuery = defineQuery<ChatMessage[]>('modelTranscript');

/**
 * Answers the question the run is waiting on (`ask_question`), the oldest first. Rejected unless
 * the run is waiting for input and the text is non-empty; returns which question it answered.
 */
export const answerUpdate = defineUpdate<{ callId: string; question: string }, [text: string]>('answer');

/** Who decides (recorded as `by`; `unknown` when not given). */
export interface DecisionBy {
  by?: string;
}

/**
 * What became of a call a person decided: `approved` (it runs), `denied`, or still `waiting` for
 * more approvals (a quorum: `approvals` so far of `quorum`).
 */
export interface ApprovalOutcome {
  callId: string;
  tool: string;
  decided: 'approved' | 'denied' | 'waiting';
  approvals: ApprovalVote[];
  quorum: number;
}

/**
 * Approves a tool call waiting for approval (by its call id); it starts once its quorum is met
 * (one approval unless its rule asks more). With `args`, it runs with those instead of the model's:
 * they are checked against the tool's parameters first, and arguments that do not match fail the
 * update, saying what is wrong, while the call keeps waiting; edited arguments start the quorum
 * again. The model is told the arguments changed. Refused (`DecisionNotAllowed`) when `by` is not
 * among the call's approvers, or started the run and the call needs four eyes.
 */
export const approveUpdate = defineUpdate<
  ApprovalOutcome,
  [callId: string, decision?: DecisionBy & { args?: Record<string, unknown> }]
>('approve');

/**
 * Denies a tool call waiting for approval; the model sees `denied: <reason>`. Refused when the
 * reason is empty, and (`DecisionNotAllowed`) when `by` is not among the call's approvers.
 */
export const denyUpdate = defineUpdate<ApprovalOutcome, [callId: string, reason?: string, decision?: DecisionBy]>(
  'deny',
);

/** Sends the next message of a conversation (after the model called `converse`). */
export const sendUpdate = defineUpdate<void, [text: string]>('send');

/** Ends a conversation: the run completes with the model's last message. */
export const endUpdate = defineUpdate<void, []>('end');
