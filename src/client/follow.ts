import type { AgentLoopResult, RunProgress, WaveRecord } from '../contract/agent-loop';
import { unseenText, type StreamedText } from '../contract/streaming';
import type { WaveloopClient } from './waveloop-client';
import { colors } from '../cli/ui/colors';
import { answerHint, approvalHint, renderCall } from '../cli/ui/render';
import { toolSummary } from '../contract/summaries';

export interface FollowOutput {
  /** Prints a whole line. */
  line(text: string): void;
  /** Prints text without ending the line (the model's reply as it streams); absent: no streaming. */
  text?(text: string): void;
  /** Prints what the run waits for from a person and the command that gives it (default: `line`). */
  waiting?(text: string): void;
  /** Runs every few seconds while nothing new has been printed (to notice a run no worker serves). */
  onIdle?(): Promise<void>;
  /**
   * A call waits for approval; absent: a line says how to decide it. `signal` is aborted when the
   * following stops (a prompt then closes): with the reason `RUN_ENDED` when the run has ended.
   */
  onApproval?(call: RunProgress['pendingApprovals'][number], signal: AbortSignal): Promise<void>;
  /** A question waits for an answer (after it was printed); absent: a line says how to answer it. */
  onQuestion?(question: RunProgress['pendingQuestions'][number], signal: AbortSignal): Promise<void>;
  /** The run waits for the person's next message after the model's of `iteration` (printed); absent: say how to send one. */
  onMessage?(iteration: number, signal: AbortSignal): Promise<void>;
}

/** The reason of a follower's abort signal when it stopped because the run ended. */
export const RUN_ENDED = 'run ended';

const POLL_MS = 250;
const IDLE_CHECK_MS = 3_000;
/** How often a follower that prints no streamed text looks for a model call being tried again. */
const RETRY_CHECK_MS = 1_000;

/**
 * Follows a run live, from anywhere: what the model says (token by token while it streams, from the
 * model activity's heartbeats; else whole, from the `status` query), each wave as soon as it ends,
 * questions, approvals and messages for the user. Polls until `stop()`.
 */
export function followRun(client: WaveloopClient, workflowId: string, out: FollowOutput) {
  let printedWaves = 0;
  let stopped = false;
  const stopping = new AbortController();
  let lastIdleCheck = Date.now();
  const seen = new Set<string>();
  // What has been printed, counted: while nothing new is, `onIdle` runs every few seconds.
  const printed = { lines: 0 };
  const said = new SaidPrinter({
    line: (text) => (printed.lines++, out.line(text)),
    text: out.text && ((text) => (printed.lines++, out.text!(text))),
  });
  const waiting = (text: string) => (printed.lines++, (out.waiting ?? out.line)(text));

  // Calls printed as they settled, before their wave ended (not printed again with it).
  const printedCalls = new Set<string>();
  const showCalls = (wave: WaveRecord) => {
    for (const call of wave.calls) {
      const key = `${wave.iteration}:${call.id}`;
      if (printedCalls.has(key)) continue;
      printedCalls.add(key);
      said.endLine();
      printed.lines++;
      out.line(renderCall(wave.iteration, call));
    }
  };
  const showWaves = (waves: AgentLoopResult['waves'], settling?: WaveRecord) => {
    for (const wave of waves.slice(printedWaves)) showCalls(wave);
    printedWaves = Math.max(printedWaves, waves.length);
    if (settling) showCalls(settling);
  };
  /** Whether `key` is new (and so to be printed, on a line of its own). */
  const isNew = (key: string) => {
    if (seen.has(key)) return false;
    seen.add(key);
    said.endLine();
    return true;
  };

  let linesAtIdleCheck = 0;
  let lastCallCheck = 0;
  const poll = async () => {
    if (printed.lines !== linesAtIdleCheck) {
      linesAtIdleCheck = printed.lines;
      lastIdleCheck = Date.now();
    } else if (Date.now() - lastIdleCheck >= IDLE_CHECK_MS) {
      lastIdleCheck = Date.now();
      await out.onIdle?.();
    }
    const progress = await client.progress(workflowId, { quick: true });
    if (progress.said) said.whole(progress.said.iteration, progress.said.text);
    showWaves(progress.waves, progress.settling);
    for (const q of progress.pendingQuestions ?? []) {
      if (!isNew(q.callId)) continue;
      if (out.onQuestion) {
        waiting(`Question: ${q.question}`);
        await out.onQuestion(q, stopping.signal);
      } else waiting(`Question: ${q.question}\n  ${answerHint(workflowId)}`);
    }
    for (const a of progress.pendingApprovals ?? []) {
      if (!isNew(a.callId)) continue;
      if (out.onApproval) await out.onApproval(a, stopping.signal);
      else waiting(`Approval needed: ${toolSummary(a.iteration, a.tool, a.args)}\n  ${approvalHint(workflowId, a.callId)}`);
    }
    if (progress.conversation && isNew(`message:${progress.iteration}`)) {
      if (out.onMessage) {
        waiting(progress.conversation.message);
        await out.onMessage(progress.iteration, stopping.signal);
      } else waiting(`${progress.conversation.message}\n  reply with: waveloop send ${workflowId} "…"   (or: waveloop end ${workflowId})`);
    }
    // A reply streams while the model call runs; show it once the waves before it are shown. A
    // call that failed and is tried again says so, with why (looked for every second when no
    // streamed text is printed).
    if (progress.phase === 'model' && (out.text || Date.now() - lastCallCheck >= RETRY_CHECK_MS)) {
      lastCallCheck = Date.now();
      const call = await client.modelCall(workflowId);
      if (call?.lastFailure && call.attempt > 1 && isNew(`retry:${progress.iteration}:${call.attempt}`)) {
        printed.lines++;
        out.line(`(iteration ${progress.iteration}) the model call failed: ${call.lastFailure}; attempt ${call.attempt}${call.maximumAttempts ? ` of ${call.maximumAttempts}` : ''}`);
      }
      if (out.text && call?.stream && call.stream.iteration >= progress.iteration) said.stream(call.stream);
    }
  };

  const loop = (async () => {
    while (!stopped) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      if (stopped) break;
      // No worker has answered yet, or the run just ended: the next poll or the result tells.
      await poll().catch(() => undefined);
    }
  })();
  return {
    /** Stops following; `result` (the run ended with it) closes an open prompt with a word on what became of what it asked. */
    async stop(result?: AgentLoopResult) {
      stopped = true;
      stopping.abort(result ? RUN_ENDED : undefined);
      await loop;
      if (result) {
        said.finish(result.answer);
        showWaves(result.waves);
      }
      said.endLine();
    },
  };
}

/**
 * Prints what the model says, one line an iteration: `(iteration 3) …`. A streamed reply is printed
 * as it grows and its line is left open; the whole text, when it arrives, completes it. Thinking the
 * model streams apart from its text comes first, dimmed, on a line of its own: `(iteration 3)
 * thinking: …`.
 */
class SaidPrinter {
  private open: { iteration: number; attempt: number; text: string; thought?: number } | undefined;
  private done = new Set<number>();

  constructor(private readonly out: Pick<FollowOutput, 'line' | 'text'>) {}

  stream(stream: StreamedText): void {
    if (this.done.has(stream.iteration)) return;
    if (this.open && (this.open.iteration !== stream.iteration || this.open.attempt !== stream.attempt)) this.endLine();
    if (!this.open) {
      this.out.text!(this.heading(stream.iteration, stream.attempt));
      this.open = { iteration: stream.iteration, attempt: stream.attempt, text: '' };
    }
    // Thinking is shown until the text starts.
    if (stream.thinking && this.open.text === '' && stream.length === 0) {
      const unseen = unseenText(stream.thinking, this.open.thought ?? 0);
      if (unseen) this.out.text!(colors.dim(`${this.open.thought === undefined ? 'thinking: ' : ''}${unseen}`));
      this.open.thought = Math.max(stream.thinking.length, this.open.thought ?? 0);
    }
    const unseen = unseenText(stream, this.open.text.length);
    if (!unseen) return;
    this.startText();
    this.out.text!(unseen);
    this.open.text += unseen;
  }

  /** The whole text of `iteration`'s reply: completes its streamed line, or prints it. */
  whole(iteration: number, text: string): void {
    if (this.done.has(iteration)) return;
    this.done.add(iteration);
    if (this.open?.iteration === iteration && this.finish(text)) return;
    this.endLine();
    this.out.line(`(iteration ${iteration}) ${text}`);
  }

  /** Completes the open line with the rest of `text` if it is how that line goes on (the run's answer). */
  finish(text: string): boolean {
    if (!this.open || !text.startsWith(this.open.text)) return false;
    if (text.length > this.open.text.length) this.startText();
    this.out.text!(text.slice(this.open.text.length));
    this.endLine();
    return true;
  }

  private heading(iteration: number, attempt: number): string {
    return `(iteration ${iteration}${attempt > 1 ? `, attempt ${attempt}` : ''}) `;
  }

  /** Ends the open line's thinking, if that is all it shows yet: the text goes on a line of its own. */
  private startText(): void {
    if (!this.open || this.open.thought === undefined || this.open.text !== '') return;
    this.out.text!(`\n${this.heading(this.open.iteration, this.open.attempt)}`);
    this.open.thought = undefined;
  }

  endLine(): void {
    if (!this.open) return;
    this.out.text!('\n');
    this.open = undefined;
  }
}
