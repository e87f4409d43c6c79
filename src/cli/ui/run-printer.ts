import type { PendingApproval, PendingQuestion, RunEvent } from '../../client/follow';
import { outcomeCommandLine } from '../../contract/effects/outcome';
import { RATE_LIMIT_WAIT_TEXT } from '../../contract/flow/rate-limit';
import { unseenText, type StreamedText } from '../../contract/model/streaming';
import { toolSummary } from '../../contract/summaries';
import { colors } from './colors';
import { answerHint, approvalHint, renderCall } from './render';

/** Where a followed run is printed, and who decides what it waits for. */
export interface FollowOutput {
  /** Prints a whole line. */
  line(text: string): void;
  /** Prints text without ending the line (the model's reply as it streams); absent: no streaming. */
  text?(text: string): void;
  /** Prints what the run waits for from a person and the command that gives it (default: `line`). */
  waiting?(text: string): void;
  /** Runs every few seconds while nothing new has been printed (to notice a run no worker serves). */
  onIdle?(): Promise<void>;
  /** A call waits for approval; absent: a line says how to decide it. `signal` closes a prompt. */
  onApproval?(call: PendingApproval, signal: AbortSignal): Promise<void>;
  /** A question waits for an answer (after it was printed); absent: a line says how to answer it. */
  onQuestion?(question: PendingQuestion, signal: AbortSignal): Promise<void>;
  /** The run waits for the person's next message after the model's of `iteration` (printed); absent: say how to send one. */
  onMessage?(iteration: number, signal: AbortSignal): Promise<void>;
}

/**
 * Prints a followed run's events (`followRun`) for a person: one line a tool call as it settles,
 * what the model says (growing as it streams), and what waits for a person with the command that
 * gives it, or the prompt that asks for it. `end()` closes a line left open.
 */
export class RunPrinter {
  private readonly said: SaidPrinter;

  constructor(
    private readonly workflowId: string,
    private readonly out: FollowOutput,
  ) {
    this.said = new SaidPrinter(out);
  }

  /** Prints `event`; resolves once a prompt it opened has been answered (or closed by `signal`). */
  async show(event: RunEvent, signal: AbortSignal): Promise<void> {
    const { out, workflowId } = this;
    const waiting = (text: string) => (out.waiting ?? out.line)(text);
    switch (event.type) {
      case 'stream':
        return this.said.stream(event.stream);
      case 'said':
        return this.said.whole(event.iteration, event.text);
      case 'ended':
        this.said.finish(event.result.answer);
        return;
    }
    this.said.endLine();
    switch (event.type) {
      case 'call':
        return out.line(renderCall(event.iteration, event.call));
      case 'rate-limit': {
        const limit = event.requestsPerMinute ? ` (${event.requestsPerMinute} calls a minute)` : '';
        const until = event.until ? `, until about ${event.until.slice(11, 19)} UTC` : '';
        return out.line(`(iteration ${event.iteration}) ${RATE_LIMIT_WAIT_TEXT}${limit}${until}`);
      }
      case 'retry': {
        const of = event.maximumAttempts ? ` of ${event.maximumAttempts}` : '';
        return out.line(
          `(iteration ${event.iteration}) the model call failed: ${event.failure}; attempt ${event.attempt}${of}`,
        );
      }
      case 'question':
        if (!out.onQuestion) return waiting(`Question: ${event.question.question}\n  ${answerHint(workflowId)}`);
        waiting(`Question: ${event.question.question}`);
        return out.onQuestion(event.question, signal);
      case 'approval': {
        const { approval } = event;
        if (out.onApproval) return out.onApproval(approval, signal);
        return waiting(
          `Approval needed: ${toolSummary(approval.iteration, approval.tool, approval.args)}${approval.reason ? ` (${approval.reason})` : ''}\n  ${approvalHint(workflowId, approval.callId)}`,
        );
      }
      case 'outcome': {
        const { outcome } = event;
        return waiting(
          `Unknown outcome: ${toolSummary(outcome.iteration, outcome.tool, outcome.args)} may or may not have run (${outcome.why})\n  decide with: ${outcomeCommandLine(workflowId, outcome.callId)}`,
        );
      }
      case 'message':
        if (!out.onMessage) {
          return waiting(
            `${event.text}\n  reply with: waveloop send ${workflowId} "…"   (or: waveloop end ${workflowId})`,
          );
        }
        waiting(event.text);
        return out.onMessage(event.iteration, signal);
    }
  }

  /** Ends a line left open by a streamed reply. */
  end(): void {
    this.said.endLine();
  }
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
    if (!this.out.text || this.done.has(stream.iteration)) return;
    if (this.open && (this.open.iteration !== stream.iteration || this.open.attempt !== stream.attempt)) this.endLine();
    if (!this.open) {
      this.out.text(this.heading(stream.iteration, stream.attempt));
      this.open = { iteration: stream.iteration, attempt: stream.attempt, text: '' };
    }
    // Thinking is shown until the text starts.
    if (stream.thinking && this.open.text === '' && stream.length === 0) {
      const unseen = unseenText(stream.thinking, this.open.thought ?? 0);
      if (unseen) this.out.text(colors.dim(`${this.open.thought === undefined ? 'thinking: ' : ''}${unseen}`));
      this.open.thought = Math.max(stream.thinking.length, this.open.thought ?? 0);
    }
    const unseen = unseenText(stream, this.open.text.length);
    if (!unseen) return;
    this.startText();
    this.out.text(unseen);
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
