import type { ChatMessage } from '../common/contract';

/** Runs whose transcripts a worker keeps at most (the least recently used are dropped first). */
const DEFAULT_CAPACITY = 1_000;

/**
 * The transcripts this worker last sent to the model, per run (workflow id + run id), each with the
 * model's reply appended. When the workflow sends only what was added since its previous model call
 * (`ModelCallInput.since`), the model activity joins it to the transcript kept here instead of
 * asking the workflow's `transcript` query: one round trip through the server less per iteration.
 * A miss (another worker made the previous call, the worker restarted, the run continued as new)
 * or a length that does not match falls back to the query, so the cache is never a source of truth.
 */
export class TranscriptCache {
  private readonly runs = new Map<string, { replyId: string; messages: ChatMessage[] }>();

  constructor(private readonly capacity = DEFAULT_CAPACITY) {}

  /**
   * The run's transcript up to `count` messages, if the kept one ends with reply `replyId` and it
   * plus `since.messages` makes exactly that.
   */
  join(workflowId: string, runId: string, since: { from: number; messages: readonly ChatMessage[]; replyId: string }, count: number): ChatMessage[] | undefined {
    const kept = this.runs.get(`${workflowId}/${runId}`);
    if (!kept || kept.replyId !== since.replyId || kept.messages.length !== since.from || since.from + since.messages.length !== count) return undefined;
    return [...kept.messages, ...since.messages];
  }

  /** Keeps what was sent to the model and its reply (named `replyId`), for the run's next model call. */
  remember(workflowId: string, runId: string, transcript: readonly ChatMessage[], replyId: string): void {
    const key = `${workflowId}/${runId}`;
    this.runs.delete(key);
    this.runs.set(key, { replyId, messages: [...transcript] });
    if (this.runs.size > this.capacity) this.runs.delete(this.runs.keys().next().value!);
  }
}
