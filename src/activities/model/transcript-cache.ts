import type { ChatMessage } from '../../contract/agent-loop';

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
 * model's reply appended. When a model call's `TranscriptSlice` carries only what was added since
 * the run's previous model call, the model activity joins it to the transcript kept here instead of
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
   * The run's transcript of `count` messages, if the kept one has `from` messages, ends with reply
   * `after`, and it plus `messages` makes exactly `count`.
   */
  join(
    workflowId: string,
    runId: string,
    slice: { count: number; from: number; after?: string },
    messages: readonly ChatMessage[],
  ): ChatMessage[] | undefined {
    const kept = this.runs.get(`${workflowId}/${runId}`);
    if (
      !kept ||
      kept.replyId !== slice.after ||
      kept.messages.length !== slice.from ||
      slice.from + messages.length !== slice.count
    )
      return undefined;
    return [...kept.messages, ...messages];
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
    while (this.runs.size > maxRuns || (this.chars > maxChars && this.runs.size > 0))
      this.drop(this.runs.keys().next().value!);
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
  const calls =
    message.role === 'assistant'
      ? (message.tool_calls ?? []).reduce((n, call) => n + call.function.arguments.length, 0)
      : 0;
  return (message.content?.length ?? 0) + calls;
}
