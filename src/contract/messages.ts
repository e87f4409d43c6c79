import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { ChatMessage, RunProgress } from './agent-loop';

/**
 * The queries and updates of an `agentLoop` run, defined once: the workflow handles them
 * (src/workflows), the client API, the worker and the tests call them. `defineQuery`/`defineUpdate`
 * only name a message and its types, so code outside workflows may import them.
 */

/** Where the run is: iteration, phase, waves so far, token usage. Answers after the run ended too. */
export const statusQuery = defineQuery<RunProgress>('status');

/** The conversation with the model so far, in Chat Completions message form. */
export const transcriptQuery = defineQuery<ChatMessage[]>('transcript');

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
 * Approves a tool call waiting for approval (by its call id); it starts at once. With `args`, it
 * runs with those instead of the model's: they are checked against the tool's parameters first,
 * and arguments that do not match fail the update, saying what is wrong, while the call keeps
 * waiting. The model is told the arguments changed.
 */
export const approveUpdate = defineUpdate<
  { callId: string; tool: string },
  [callId: string, decision?: DecisionBy & { args?: Record<string, unknown> }]
>('approve');

/** Denies a tool call waiting for approval; the model sees `denied: <reason>` (an empty reason: "denied by a person"). */
export const denyUpdate = defineUpdate<
  { callId: string; tool: string },
  [callId: string, reason?: string, decision?: DecisionBy]
>('deny');

/** Sends the next message of a conversation (after the model called `converse`). */
export const sendUpdate = defineUpdate<void, [text: string]>('send');

/** Ends a conversation: the run completes with the model's last message. */
export const endUpdate = defineUpdate<void, []>('end');
