import { ApplicationFailure, condition, proxyLocalActivities, setHandler } from '@temporalio/workflow';
import type { createActivities } from '../activities';
import type { RunProgress } from '../contract/agent-loop';
import { FailureType } from '../contract/errors';
import { answerUpdate, approveUpdate, denyUpdate, endUpdate, sendUpdate, type DecisionBy } from '../contract/messages';
import type { Waiting } from './notices';

const { checkToolArguments } = proxyLocalActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: '30 seconds',
});

type ApproveDecision = DecisionBy & { args?: Record<string, unknown> };

/** How a call that needed approval was decided, by whom (`timeout`: its deadline) and when. */
export type Decision = { by: string; at: string } & (
  { approved: true; args?: Record<string, unknown> } | { approved: false; reason: string }
);

/** A call that waits for approval: what the person sees, and how long it may wait. */
export interface ApprovalRequest {
  callId: string;
  tool: string;
  args: Record<string, unknown>;
  iteration: number;
  /** Why it waits (its rule's reason). */
  reason?: string;
  /** After this many seconds `onTimeout` decides; none: as long as it takes. */
  timeoutSeconds?: number;
  onTimeout: 'deny' | 'approve';
}

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
  /** Told each time the run begins to wait for a person (its webhooks: `Notifier.waiting`). */
  onWait: (waiting: Waiting) => void = () => undefined;

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
      async (callId: string, decision?: ApproveDecision) => {
        const args = decision?.args;
        if (args) {
          // Edited arguments must suit the tool before the approval counts; the check runs on the worker.
          const problem = await checkToolArguments({ name: this.waitingCall(callId).tool, args });
          if (problem) throw refusal(`${problem}. The call still waits for a decision.`);
          this.requirePendingCall(callId);
        }
        this.decisions.set(callId, {
          approved: true,
          by: byOf(decision),
          at: workflowTime(),
          ...(args ? { args } : {}),
        });
        this.refresh();
        return this.describeCall(callId);
      },
      {
        validator: (callId: string, decision?: ApproveDecision) => {
          this.requirePendingCall(callId);
          requireDecider(decision);
          const args = decision?.args;
          if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args)))
            throw refusal('The edited arguments must be a JSON object.');
        },
      },
    );
    setHandler(
      denyUpdate,
      (callId: string, reason?: string, decision?: DecisionBy) => {
        const why = reason?.trim() || 'denied by a person';
        this.decisions.set(callId, { approved: false, reason: why, by: byOf(decision), at: workflowTime() });
        this.refresh();
        return this.describeCall(callId);
      },
      {
        validator: (callId: string, reason?: string, decision?: DecisionBy) => {
          this.requirePendingCall(callId);
          if (reason !== undefined && reason !== null && typeof reason !== 'string')
            throw refusal('The reason must be a string.');
          requireDecider(decision);
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

  /** `ask_question`: waits for the `answer` update (or `timeoutSeconds`); undefined when nobody answered. */
  async ask(callId: string, question: string, timeoutSeconds: number | undefined): Promise<string | undefined> {
    this.progress.pendingQuestions.push({ callId, question, since: workflowTime() });
    this.refresh();
    this.onWait({
      event: 'waiting_for_input',
      key: `${this.progress.iteration}:${callId}`,
      pending: { callId, question },
    });
    try {
      const answered = await waitFor(() => this.answers.has(callId), timeoutSeconds);
      return answered ? this.answers.get(callId) : undefined;
    } finally {
      this.progress.pendingQuestions = this.progress.pendingQuestions.filter((q) => q.callId !== callId);
      this.refresh();
    }
  }

  /**
   * A call that needs approval waits here for `approve` or `deny`, or for its deadline (a durable
   * timer), after which `onTimeout` decides, `by: 'timeout'`. Other calls are not held back.
   */
  async approval(request: ApprovalRequest): Promise<Decision> {
    const { callId, tool, args, iteration, reason, timeoutSeconds, onTimeout } = request;
    const since = workflowTime();
    const deadline =
      timeoutSeconds === undefined ? undefined : new Date(Date.parse(since) + timeoutSeconds * 1000).toISOString();
    this.progress.pendingApprovals.push({
      callId,
      tool,
      args,
      iteration,
      since,
      ...(reason ? { reason } : {}),
      ...(deadline ? { deadline, onTimeout } : {}),
    });
    this.refresh();
    this.onWait({
      event: 'waiting_for_approval',
      key: `${iteration}:${callId}`,
      pending: { callId, tool, args, ...(reason ? { reason } : {}), ...(deadline ? { deadline } : {}) },
    });
    try {
      if (await waitFor(() => this.decisions.has(callId), timeoutSeconds)) return this.decisions.get(callId)!;
      const at = workflowTime();
      return onTimeout === 'approve'
        ? { approved: true, by: 'timeout', at }
        : {
            approved: false,
            by: 'timeout',
            at,
            reason: `nobody decided within ${Math.round(timeoutSeconds!)} seconds`,
          };
    } finally {
      this.progress.pendingApprovals = this.progress.pendingApprovals.filter((a) => a.callId !== callId);
      this.refresh();
    }
  }

  /** `converse`: the turn's message is out; waits for `send`, `end` or `idleTimeoutSeconds` of silence. */
  async converse(message: string, idleTimeoutSeconds: number | undefined): Promise<ConversationTurn> {
    this.progress.conversation = { message, since: workflowTime() };
    this.incoming = undefined;
    this.refresh();
    this.onWait({ event: 'waiting_for_message', key: String(this.progress.iteration), message });
    try {
      const heard = await waitFor(() => this.incoming !== undefined, idleTimeoutSeconds);
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
      throw refusal('Name the tool call to decide (its call id).');
    if (!this.decisions.has(callId) && this.progress.pendingApprovals.some((a) => a.callId === callId)) return;
    const open = this.progress.pendingApprovals.filter((a) => !this.decisions.has(a.callId)).map((a) => a.callId);
    throw refusal(`No call ${callId} is waiting for approval${open.length ? ` (waiting: ${open.join(', ')})` : ''}.`);
  }

  private waitingCall(callId: string) {
    return this.progress.pendingApprovals.find((a) => a.callId === callId)!;
  }

  private describeCall(callId: string) {
    return { callId, tool: this.waitingCall(callId).tool };
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

/** An update refused: from a validator or a handler alike, it fails the update, not the run. */
function refusal(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: FailureType.InvalidInput, message, nonRetryable: true });
}

/** A decider, when named, is a non-empty string. */
function requireDecider(decision: DecisionBy | undefined): void {
  if (decision !== undefined && decision !== null && (typeof decision !== 'object' || Array.isArray(decision)))
    throw refusal('The decision must be an object: { by?, args? }.');
  const by = decision?.by;
  if (by !== undefined && (typeof by !== 'string' || by.trim() === ''))
    throw refusal('The decider (by) must be a non-empty name.');
}

/** Who decided; `unknown` when the update did not say. */
function byOf(decision: DecisionBy | undefined): string {
  return decision?.by?.trim() || 'unknown';
}

function requireText(text: unknown, what: string): void {
  if (typeof text !== 'string' || text.trim() === '') throw new Error(`${what} must be a non-empty string.`);
}

/** `condition` with an optional timeout; true when `predicate` came true. */
async function waitFor(predicate: () => boolean, timeoutSeconds: number | undefined): Promise<boolean> {
  if (timeoutSeconds === undefined) {
    await condition(predicate);
    return true;
  }
  return condition(predicate, timeoutSeconds * 1000);
}

/** The workflow's time now (its task's start time, the same on replay), as ISO 8601: when a wait began. */
function workflowTime(): string {
  return new Date().toISOString();
}
