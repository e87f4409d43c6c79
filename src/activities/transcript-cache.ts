import type { ChatMessage } from '../common/contract';

/** Runs whose transcripts a worker keeps at most. */
const DEFAULT_MAX_RUNS = 1_000;
/** Characters of message content a worker keeps at most, over all runs (about 256 MB of text). */
const DEFAULT_MAX_CHARS = 256 * 1024 * 1024;

interface Kept {
  replyId: string;
  messages: readonly ChatMessage[];
  chars: number;
}

/**
 * The transcripts this worker last sent to the model, per run (workflow id + run id), each with the
 * model's reply appended. When the workflow sends only what was added since its previous model call
 * (`ModelCallInput.since`), the model activity joins it to the transcript kept here instead of
 * asking the workflow's `transcript` query: one round trip through the server less per iteration.
 * A miss (another worker made the previous call, the worker restarted, the run continued as new,
 * the run was dropped to stay within the limits) or a transcript that does not end with the reply
 * the workflow recorded falls back to the query, so the cache is never a source of truth. The least
 * recently used runs are dropped first.
 */
export class TranscriptCache {
  private readonly runs = new Map<string, Kept>();
  private chars = 0;

  constructor(private readonly limits: { maxRuns?: number; maxChars?: number } = {}) {}

  /**
   * The run's transcript up to `count` messages, if the kept one ends with reply `replyId` and it
   * plus `since.messages` makes exactly that.
   */
  join(workflowId: string, runId: string, since: { from: number; messages: readonly ChatMessage[]; replyId: string }, count: number): ChatMessage[] | undefined {
    const kept = this.runs.get(`${workflowId}/${runId}`);
    if (!kept || kept.replyId !== since.replyId || kept.messages.length !== since.from || since.from + since.messages.length !== count) return undefined;
    return [...kept.messages, ...since.messages];
  }

  /**
   * Keeps what was sent to the model and its reply (named `replyId`), for the run's next model call.
   * The cache never changes the array, nor does `join`'s result share it.
   */
  remember(workflowId: string, runId: string, transcript: readonly ChatMessage[], replyId: string): void {
    const key = `${workflowId}/${runId}`;
    this.drop(key);
    const kept = { replyId, messages: transcript, chars: transcript.reduce((n, message) => n + sizeOf(message), 0) };
    this.runs.set(key, kept);
    this.chars += kept.chars;
    const { maxRuns = DEFAULT_MAX_RUNS, maxChars = DEFAULT_MAX_CHARS } = this.limits;
    while (this.runs.size > maxRuns || (this.chars > maxChars && this.runs.size > 0)) this.drop(this.runs.keys().next().value!);
  }

  /** Runs kept now. */
  get size(): number {
    return this.runs.size;
  }

  private drop(key: string): void {
    const kept = this.runs.get(key);
    if (!kept) return;
    this.runs.delete(key);
    this.chars -= kept.chars;
  }
}

function sizeOf(message: ChatMessage): number {
  const calls = message.role === 'assistant' ? (message.tool_calls ?? []).reduce((n, call) => n + call.function.arguments.length, 0) : 0;
  return (message.content?.length ?? 0) + calls;
}
