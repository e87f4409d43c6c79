import { condition, setHandler } from '@temporalio/workflow';
import type { RunProgress } from '../contract/agent-loop';
import { answerUpdate, approveUpdate, denyUpdate, endUpdate, sendUpdate } from '../contract/messages';

/** How a person decided a call that needed approval. */
export type Decision = { approved: true } | { approved: false; reason: string };

/** What ended a conversation turn's wait. */
export type ConversationTurn = { kind: 'message'; text: string } | { kind: 'end' } | { kind: 'idle' };

/**
 * Everything a run waits on people for (questions, approvals of single calls, conversations), with
 * the updates that deliver their answers. Each update is validated before it is accepted: it must
 * match something the run is waiting on, with a non-empty text, or it is rejected with a message
 * that says why, and the run is untouched. The waits are durable: they survive worker restarts and
 * last as long as they need to.
 */
export class HumanGate {
  private readonly answers = new Map<string, string>();
  private readonly decisions = new Map<string, Decision>();
  private incoming: ConversationTurn | undefined;

  constructor(
    private readonly progress: RunProgress,
    /** Called after the status may have changed (to publish it). */
    private readonly onChange: () => void = () => undefined,
  ) {
    setHandler(
      answerUpdate,
      (text) => {
        const question = this.openQuestions()[0];
        this.answers.set(question.callId, text.trim());
        this.refresh();
        return { callId: question.callId, question: question.question };
      },
      {
        validator: (text) => {
          requireText(text, 'The answer');
          if (this.openQuestions().length === 0) throw new Error('This run is not waiting for an answer.');
        },
      },
    );
    setHandler(
      approveUpdate,
      (callId) => {
        this.decisions.set(callId, { approved: true });
        this.refresh();
        return this.describeCall(callId);
      },
      { validator: (callId) => this.requirePendingCall(callId) },
    );
    setHandler(
      denyUpdate,
      (callId, reason) => {
        this.decisions.set(callId, { approved: false, reason: reason?.trim() || 'denied by a person' });
        this.refresh();
        return this.describeCall(callId);
      },
      {
        validator: (callId, reason) => {
          this.requirePendingCall(callId);
          if (reason !== undefined && typeof reason !== 'string') throw new Error('The reason must be a string.');
        },
      },
    );
    setHandler(
      sendUpdate,
      (text) => {
        this.incoming = { kind: 'message', text: text.trim() };
      },
      {
        validator: (text) => {
          requireText(text, 'The message');
          if (!this.progress.conversation || this.incoming) throw new Error('This run is not waiting for a message.');
        },
      },
    );
    setHandler(
      endUpdate,
      () => {
        this.incoming = { kind: 'end' };
      },
      {
        validator: () => {
          if (!this.progress.conversation || this.incoming) throw new Error('This run is not waiting for a message.');
        },
      },
    );
  }

  /** `ask_question`: waits for the `answer` update (or `timeoutMs`); undefined when nobody answered. */
  async ask(callId: string, question: string, timeoutMs: number | undefined): Promise<string | undefined> {
    this.progress.pendingQuestions.push({ callId, question, since: workflowTime() });
    this.refresh();
    try {
      const answered = await waitFor(() => this.answers.has(callId), timeoutMs);
      return answered ? this.answers.get(callId) : undefined;
    } finally {
      this.progress.pendingQuestions = this.progress.pendingQuestions.filter((q) => q.callId !== callId);
      this.refresh();
    }
  }

  /** A call that needs approval waits here for `approve` or `deny`; other calls are not held back. */
  async approval(callId: string, tool: string, args: Record<string, unknown>, iteration: number): Promise<Decision> {
    this.progress.pendingApprovals.push({ callId, tool, args, iteration, since: workflowTime() });
    this.refresh();
    try {
      await condition(() => this.decisions.has(callId));
      return this.decisions.get(callId)!;
    } finally {
      this.progress.pendingApprovals = this.progress.pendingApprovals.filter((a) => a.callId !== callId);
      this.refresh();
    }
  }

  /** `converse`: the turn's message is out; waits for `send`, `end` or `idleTimeoutMs` of silence. */
  async converse(message: string, idleTimeoutMs: number | undefined): Promise<ConversationTurn> {
    this.progress.conversation = { message, since: workflowTime() };
    this.incoming = undefined;
    this.refresh();
    try {
      const heard = await waitFor(() => this.incoming !== undefined, idleTimeoutMs);
      return heard ? this.incoming! : { kind: 'idle' };
    } finally {
      this.progress.conversation = undefined;
      this.incoming = undefined;
      this.refresh();
    }
  }

  private openQuestions() {
    return this.progress.pendingQuestions.filter((q) => !this.answers.has(q.callId));
  }

  private requirePendingCall(callId: unknown): void {
    if (typeof callId !== 'string' || callId.trim() === '')
      throw new Error('Name the tool call to decide (its call id).');
    const pending = this.progress.pendingApprovals.find((a) => a.callId === callId && !this.decisions.has(a.callId));
    if (!pending) {
      const open = this.progress.pendingApprovals.filter((a) => !this.decisions.has(a.callId)).map((a) => a.callId);
      throw new Error(
        `No call ${callId} is waiting for approval${open.length ? ` (waiting: ${open.join(', ')})` : ''}.`,
      );
    }
  }

  private describeCall(callId: string) {
    const call = this.progress.pendingApprovals.find((a) => a.callId === callId)!;
    return { callId, tool: call.tool };
  }

  /** The run's status while it runs: a question first, then approvals, then a conversation. */
  private refresh(): void {
    if (!['running', 'waiting_for_input', 'waiting_for_approval', 'waiting_for_message'].includes(this.progress.status))
      return;
    this.progress.status = this.status();
    this.onChange();
  }

  private status(): RunProgress['status'] {
    return this.openQuestions().length
      ? 'waiting_for_input'
      : this.progress.pendingApprovals.some((a) => !this.decisions.has(a.callId))
        ? 'waiting_for_approval'
        : this.progress.conversation
          ? 'waiting_for_message'
          : 'running';
  }
}

function requireText(text: unknown, what: string): void {
  if (typeof text !== 'string' || text.trim() === '') throw new Error(`${what} must be a non-empty string.`);
}

/** `condition` with an optional timeout; true when `predicate` came true. */
async function waitFor(predicate: () => boolean, timeoutMs: number | undefined): Promise<boolean> {
  if (timeoutMs === undefined) {
    await condition(predicate);
    return true;
  }
  return condition(predicate, timeoutMs);
}

/** The workflow's time now (its task's start time, the same on replay), as ISO 8601: when a wait began. */
function workflowTime(): string {
  return new Date().toISOString();
}
