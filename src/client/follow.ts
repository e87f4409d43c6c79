import type { AgentLoopResult, RunProgress, ToolCallRecord, WaveRecord } from '../contract/agent-loop';
import type { PendingOutcome } from '../contract/effects/outcome';
import type { StreamedText } from '../contract/model/streaming';
import type { ModelCallState } from './model-call';

/** What a follower reads of a run (`WaveloopClient.runs` has both). */
export interface RunReader {
  progress(workflowId: string, options?: { quick?: boolean }): Promise<RunProgress>;
  modelCall(workflowId: string): Promise<ModelCallState | undefined>;
}

/** A question a run waits on (`ask_question`). */
export type PendingQuestion = RunProgress['pendingQuestions'][number];
/** A tool call that waits for a person's approval. */
export type PendingApproval = RunProgress['pendingApprovals'][number];

/**
 * What a follower sees of a run, in the order it happens. Each is reported once, but for `stream`,
 * which reports the reply so far each time it has grown.
 */
export type RunEvent =
  /** What the model said in `iteration` (with its tool calls, or its answer), whole. */
  | { type: 'said'; iteration: number; text: string }
  /** The model's reply so far while the model call runs (only when following with `stream: true`). */
  | { type: 'stream'; stream: StreamedText }
  /** A tool call of `iteration`'s wave settled, with its result or its error. */
  | { type: 'call'; iteration: number; call: ToolCallRecord }
  /** The run waits for the answer to a question. */
  | { type: 'question'; question: PendingQuestion }
  /** A tool call waits for approval. */
  | { type: 'approval'; approval: PendingApproval }
  /** A `write` call may or may not have run: it waits for a person to say (docs/effects.md#unknown-outcomes). */
  | { type: 'outcome'; outcome: PendingOutcome }
  /** A conversation waits for the person's next message, after the model's `text` of `iteration`. */
  | { type: 'message'; iteration: number; text: string }
  /**
   * `iteration`'s model call waits for the model's rate limit: held at its worker's gate until about
   * `until` (ISO 8601), or held back on its rate-limited task queue (`RunProgress.modelRateLimit`).
   */
  | { type: 'rate-limit'; iteration: number; attempt: number; until?: string; requestsPerMinute?: number }
  /** `iteration`'s model call failed and is being tried again (`attempt` of `maximumAttempts`). */
  | { type: 'retry'; iteration: number; attempt: number; maximumAttempts?: number; failure: string }
  /** The run ended with `result` (reported by `stop(result)`, before the calls not reported yet). */
  | { type: 'ended'; result: AgentLoopResult };

export interface FollowOptions {
  /**
   * Called with each event, one at a time (the next waits for the promise it returns). `signal` is
   * aborted when the following stops (a prompt for a decision then closes): with the reason
   * `RUN_ENDED` when the run has ended.
   */
  onEvent(event: RunEvent, signal: AbortSignal): void | Promise<void>;
  /** Runs every few seconds while no event came (to notice a run no worker serves). */
  onIdle?(): Promise<void>;
  /** Report the model's reply while it streams (`stream` events), from the model activity's heartbeats. */
  stream?: boolean;
}

/** A run being followed. */
export interface Follower {
  /** Stops following; with the run's `result` (it ended), reports `ended` and the calls not reported yet. */
  stop(result?: AgentLoopResult): Promise<void>;
}

/** The reason of a follower's abort signal when it stopped because the run ended. */
export const RUN_ENDED = 'run ended';

const POLL_MS = 250;
const IDLE_CHECK_MS = 3_000;
/** How often a follower that does not stream looks for a model call being tried again. */
const RETRY_CHECK_MS = 1_000;

/**
 * Follows a run live, from anywhere, by polling its `status` query: what the model says (while it
 * streams too, from the model activity's heartbeats, when asked), each tool call as it settles,
 * questions, approvals and messages a person is asked for, model calls tried again, and model calls
 * waiting for the model's rate limit. Polls until
 * `stop()`; a poll that fails (no worker has answered yet, or the run just ended) is tried again.
 */
export function followRun(client: RunReader, workflowId: string, options: FollowOptions): Follower {
  const stopping = new AbortController();
  const seen = new Set<string>();
  let stopped = false;
  let events = 0;
  let lastStream: StreamedText | undefined;
  const report = async (event: RunEvent) => {
    events++;
    await options.onEvent(event, stopping.signal);
  };
  /** Whether `key` is new (and so to be reported); it is seen from now on. */
  const isNew = (key: string) => {
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  };

  const reportCalls = async (wave: WaveRecord) => {
    for (const call of wave.calls) {
      if (isNew(`call:${wave.iteration}:${call.id}`)) await report({ type: 'call', iteration: wave.iteration, call });
    }
  };
  const reportWaves = async (waves: readonly WaveRecord[], settling?: WaveRecord) => {
    for (const wave of waves) await reportCalls(wave);
    if (settling) await reportCalls(settling);
  };

  let eventsAtIdleCheck = 0;
  let lastIdleCheck = Date.now();
  let lastCallCheck = 0;
  const poll = async () => {
    if (events !== eventsAtIdleCheck) {
      eventsAtIdleCheck = events;
      lastIdleCheck = Date.now();
    } else if (Date.now() - lastIdleCheck >= IDLE_CHECK_MS) {
      lastIdleCheck = Date.now();
      await options.onIdle?.();
    }
    const progress = await client.progress(workflowId, { quick: true });
    if (progress.said && isNew(`said:${progress.said.iteration}`)) await report({ type: 'said', ...progress.said });
    await reportWaves(progress.waves, progress.settling);
    for (const question of progress.pendingQuestions ?? []) {
      if (isNew(question.callId)) await report({ type: 'question', question });
    }
    for (const approval of progress.pendingApprovals ?? []) {
      if (isNew(approval.callId)) await report({ type: 'approval', approval });
    }
    for (const outcome of progress.pendingOutcomes ?? []) {
      if (isNew(`outcome:${outcome.callId}:${outcome.since}`)) await report({ type: 'outcome', outcome });
    }
    if (progress.conversation && isNew(`message:${progress.iteration}`)) {
      await report({ type: 'message', iteration: progress.iteration, text: progress.conversation.message });
    }
    // A reply streams while the model call runs. A call that failed and is tried again is
    // reported, with why (looked for every second when not streaming).
    if (progress.phase === 'model' && (options.stream || Date.now() - lastCallCheck >= RETRY_CHECK_MS)) {
      lastCallCheck = Date.now();
      const call = await client.modelCall(workflowId);
      if (call?.lastFailure && call.attempt > 1 && isNew(`retry:${progress.iteration}:${call.attempt}`)) {
        const { attempt, maximumAttempts, lastFailure: failure } = call;
        await report({
          type: 'retry',
          iteration: progress.iteration,
          attempt,
          ...(maximumAttempts ? { maximumAttempts } : {}),
          failure,
        });
      }
      const held = call?.waiting && (call.waiting.until !== undefined || progress.modelRateLimit);
      if (held && call && isNew(`rate-limit:${progress.iteration}:${call.attempt}`)) {
        await report({
          type: 'rate-limit',
          iteration: progress.iteration,
          attempt: call.attempt,
          ...(call.waiting?.until ? { until: new Date(call.waiting.until).toISOString() } : {}),
          ...(progress.modelRateLimit ? { requestsPerMinute: progress.modelRateLimit.requestsPerMinute } : {}),
        });
      }
      if (
        options.stream &&
        call?.stream &&
        call.stream.iteration >= progress.iteration &&
        grew(lastStream, call.stream)
      ) {
        lastStream = call.stream;
        await report({ type: 'stream', stream: call.stream });
      }
    }
  };

  const loop = (async () => {
    while (!stopped) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      if (stopped) break;
      await poll().catch(() => undefined);
    }
  })();
  return {
    async stop(result?: AgentLoopResult) {
      stopped = true;
      stopping.abort(result ? RUN_ENDED : undefined);
      await loop;
      if (result) {
        await report({ type: 'ended', result });
        await reportWaves(result.waves);
      }
    },
  };
}

/** Whether `next` shows more of a reply than `last` did (or another reply, or a new attempt of it). */
function grew(last: StreamedText | undefined, next: StreamedText): boolean {
  if (!last || last.iteration !== next.iteration || last.attempt !== next.attempt) return true;
  return next.length > last.length || (next.thinking?.length ?? 0) > (last.thinking?.length ?? 0);
}
