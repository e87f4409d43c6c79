import { textHash } from '../contract/text-hash';

/** Tool results a worker keeps at most. */
const DEFAULT_MAX_RESULTS = 10_000;
/** Characters of tool results a worker keeps at most (about 64 MB of text). */
const DEFAULT_MAX_CHARS = 64 * 1024 * 1024;

/**
 * The results of the tool calls this worker ran (`runTool`), per run and call, until the run's next
 * model call on this worker takes them. The workflow then sends that call only a reference to each
 * result it knows came from `runTool` (`ModelCallInput.delta`), so history records a tool result
 * once (in the tool's completion) instead of twice. A reference names the result's length and hash:
 * a result this worker kept from an attempt whose completion never reached the server does not
 * match the one the workflow recorded. Any miss (another worker ran the tool, a restart, a result
 * dropped to stay within the limits) makes the model call read the transcript through the
 * workflow's query instead, so the cache is never a source of truth. The oldest results go first.
 */
export class ToolResultCache {
  private readonly results = new Map<string, string>();
  private chars = 0;

  constructor(private readonly limits: { maxResults?: number; maxChars?: number } = {}) {}

  remember(workflowId: string, runId: string, toolCallId: string, content: string): void {
    const key = keyOf(workflowId, runId, toolCallId);
    this.drop(key);
    this.results.set(key, content);
    this.chars += content.length;
    const { maxResults = DEFAULT_MAX_RESULTS, maxChars = DEFAULT_MAX_CHARS } = this.limits;
    while (this.results.size > maxResults || (this.chars > maxChars && this.results.size > 0))
      this.drop(this.results.keys().next().value!);
  }

  /** The kept result of the call if it has `chars` characters and hash `hash`; it is dropped from the cache either way. */
  take(
    workflowId: string,
    runId: string,
    toolCallId: string,
    ref: { chars: number; hash: string },
  ): string | undefined {
    const key = keyOf(workflowId, runId, toolCallId);
    const content = this.results.get(key);
    this.drop(key);
    return content !== undefined && content.length === ref.chars && textHash(content) === ref.hash
      ? content
      : undefined;
  }

  /** Results kept now. */
  get size(): number {
    return this.results.size;
  }

  private drop(key: string): void {
    const content = this.results.get(key);
    if (content === undefined) return;
    this.results.delete(key);
    this.chars -= content.length;
  }
}

function keyOf(workflowId: string, runId: string, toolCallId: string): string {
  return `${workflowId}\u0000${runId}\u0000${toolCallId}`;
}
