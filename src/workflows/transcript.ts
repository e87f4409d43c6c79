import type { ModelCallOutput, ToolResultRef, TranscriptSlice } from '../contract/activity-io';
import type { ChatMessage } from '../contract/agent-loop';
import { textHash } from '../contract/text-hash';

/**
 * A slice starting the transcript carries at most this many characters inline; a longer one is
 * read through the `transcript` query, so the history does not record a long goal twice.
 */
export const MAX_OPENING_CHARS = 8_000;

/**
 * The run's conversation with the model, in Chat Completions form, and what each model call must
 * send of it (`TranscriptSlice`). It remembers what the worker that made the latest model call
 * holds (everything up to and including that reply) and which tool results of the latest wave a
 * worker kept when it ran the tool, so the next call carries only the rest.
 */
export class Transcript {
  readonly messages: ChatMessage[];
  /** What the latest model call's worker holds: the first `seen` messages, ending with reply `replyId`. */
  private held: { seen: number; replyId: string } | undefined;
  /** Calls of the latest wave whose results `runTool` returned (the worker that ran each kept it). */
  private keptResults = new Set<string>();

  constructor(messages: readonly ChatMessage[]) {
    this.messages = [...messages];
  }

  get length(): number {
    return this.messages.length;
  }

  add(...messages: ChatMessage[]): void {
    this.messages.push(...messages);
  }

  /** A model reply joins the transcript; the worker that made the call holds everything up to it. */
  heard(reply: ModelCallOutput): void {
    this.messages.push(reply.message);
    this.held = { seen: this.messages.length, replyId: reply.replyId };
  }

  /** A wave's results join the transcript; `fromRunTool` names the calls whose results a worker kept. */
  addResults(messages: ChatMessage[], fromRunTool: Iterable<string>): void {
    this.messages.push(...messages);
    this.keptResults = new Set(fromRunTool);
  }

  /** Replaces the whole transcript (pruned memory): no worker holds any of it any more. */
  replace(messages: readonly ChatMessage[]): void {
    this.messages.splice(0, this.messages.length, ...messages);
    this.held = undefined;
    this.keptResults.clear();
  }

  /** Characters of message content added since the latest model reply (all of it when none). */
  charsSinceReply(): number {
    return this.messages.slice(this.held?.seen ?? 0).reduce((n, message) => n + (message.content?.length ?? 0), 0);
  }

  /**
   * What the next model call sends. `whole`: the complete transcript, without references (a local
   * model call, which cannot fall back to the query).
   */
  slice(whole = false): TranscriptSlice {
    const count = this.messages.length;
    if (whole) return { count, from: 0, messages: this.messages };
    if (this.held) {
      const { seen, replyId } = this.held;
      return {
        count,
        from: seen,
        after: replyId,
        messages: this.messages.slice(seen).map((message) => this.byReference(message)),
      };
    }
    const chars = this.messages.reduce((n, message) => n + (message.content?.length ?? 0), 0);
    return {
      count,
      from: 0,
      messages: chars <= MAX_OPENING_CHARS ? this.messages.map((message) => this.byReference(message)) : [],
    };
  }

  private byReference(message: ChatMessage): ChatMessage | ToolResultRef {
    if (message.role !== 'tool' || !this.keptResults.has(message.tool_call_id)) return message;
    return {
      role: 'tool',
      tool_call_id: message.tool_call_id,
      result: { chars: message.content.length, hash: textHash(message.content) },
    };
  }
}
