import { isCancellation, workflowInfo } from '@temporalio/workflow';
import type { ResolvedRun } from '../contract/activity-io';
import type { AgentLoopInput, ChatMessage, Usage } from '../contract/agent-loop';
import { compacted, compactionRange } from './compaction';
import { continueChain, type Continuation, type StartingState } from './continuation';
import { summarize } from './model-calls';
import type { Transcript } from './transcript';

/** Past this share of the model's context window, the transcript is pruned before the next model call. */
export const CONTEXT_PRUNE_SHARE = 0.8;

/**
 * A run's memory: the transcript kept within the model's context window and the run's history kept
 * short. Past `CONTEXT_PRUNE_SHARE` of the window, the older turns are replaced by the model's
 * summary of them (the system prompt, the goal and the recent turns are kept); when the history
 * grows long, the run hands over to a fresh run of the same workflow (continue-as-new) with its
 * transcript pruned the same way.
 */
export class Memory {
  /** What the latest model call used: its prompt is the measure of the transcript it saw. */
  lastCall: Usage | undefined;
  /** Whether the transcript was pruned since `lastCall` measured it (a run handed over starts so). */
  private pruned: boolean;

  constructor(
    private readonly transcript: Transcript,
    private readonly run: Pick<ResolvedRun, 'settings' | 'priority' | 'modelQueue'>,
    /** Counts the tokens a summary used. */
    private readonly spend: (usage: Usage) => void,
    start: Pick<StartingState, 'lastCall' | 'handedOver'>,
  ) {
    this.lastCall = start.lastCall;
    this.pruned = start.handedOver;
  }

  /** A model call answered, having used `usage`. */
  measured(usage: Usage): void {
    this.lastCall = usage;
    this.pruned = false;
  }

  /**
   * Whether the next model call would fill more than `CONTEXT_PRUNE_SHARE` of the context window:
   * the latest call's tokens plus what came after it (about 4 characters a token).
   */
  nearlyFull(): boolean {
    const contextTokens = this.run.settings.maxContextTokens;
    if (!contextTokens || !this.lastCall || this.pruned) return false;
    const next =
      this.lastCall.promptTokens + this.lastCall.completionTokens + Math.ceil(this.transcript.charsSinceReply() / 4);
    return next > contextTokens * CONTEXT_PRUNE_SHARE;
  }

  /** Prunes the transcript within this run. False when there was nothing to drop. */
  async prune(): Promise<boolean> {
    const kept = await this.summarized('memory');
    if (!kept) return false;
    this.transcript.replace(kept);
    this.pruned = true;
    return true;
  }

  /** Whether the history has grown long enough for a hand-over (or Temporal suggests one). */
  handOverDue(): boolean {
    const info = workflowInfo();
    return info.continueAsNewSuggested || info.historyLength >= this.run.settings.maxHistoryEvents;
  }

  /**
   * Continues as new with the transcript pruned; everything else in `state` carries over. On a
   * versioned worker the next run starts on the deployment's current version, unless this run is a
   * child (a goal tree's tool loop), which stays on its parent's version.
   */
  async handOver(input: AgentLoopInput, state: Omit<Continuation, 'messages'>): Promise<never> {
    const messages = (await this.summarized('hand-over')) ?? this.transcript.messages;
    return continueChain(input, { ...state, messages });
  }

  /** The transcript with its older part replaced by a summary, or undefined when there is nothing to drop. */
  private async summarized(label: string): Promise<ChatMessage[] | undefined> {
    const { messages } = this.transcript;
    const range = compactionRange(messages);
    if (!range) return undefined;
    let summary: string;
    try {
      const out = await summarize(label, range, this.run);
      this.spend(out.usage);
      summary = out.summary;
    } catch (err) {
      if (isCancellation(err)) throw err;
      summary = '(The summary of these messages could not be made; they were dropped.)';
    }
    return compacted(messages, range, summary);
  }
}
