import { defineQuery } from '@temporalio/workflow';
import type { ChatMessage, RunProgress } from '../common/contract';

/** Where the run is: iteration, phase, waves so far, token usage. Answers after the run ended too. */
export const statusQuery = defineQuery<RunProgress>('status');

/** The conversation with the model so far, in Chat Completions message form. */
export const transcriptQuery = defineQuery<ChatMessage[]>('transcript');
