import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { ChatMessage, RunProgress } from '../common/contract';

/** Where the run is: iteration, phase, waves so far, token usage. Answers after the run ended too. */
export const statusQuery = defineQuery<RunProgress>('status');

/** The conversation with the model so far, in Chat Completions message form. */
export const transcriptQuery = defineQuery<ChatMessage[]>('transcript');

/**
 * Answers the question the run is waiting on (`ask_question`), the oldest first. Rejected unless
 * the run is waiting for input and the text is non-empty; returns which question it answered.
 */
export const answerUpdate = defineUpdate<{ callId: string; question: string }, [text: string]>('answer');
