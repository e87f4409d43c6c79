import { condition, proxyLocalActivities, setHandler } from '@temporalio/workflow';
import type { createActivities } from '../activities';
import type { PendingApproval, RunProgress } from '../contract/agent-loop';
import {
  answerUpdate,
  approveUpdate,
  denyUpdate,
  endUpdate,
  sendUpdate,
  type ApprovalOutcome,
  type DecisionBy,
} from '../contract/messages';
import { UNKNOWN_PERSON, type ApprovalPolicy, type ApprovalVote } from '../contract/people/approvals';
import { maskArgs, unmaskArgs } from '../contract/sensitive';
import type { AuditNote } from './audit-trail';
import { refusal, requireMayDecide } from './may-decide';
import type { Waiting } from './notices';
import { OutcomeGate } from './outcome-gate';

const { checkToolArguments } = proxyLocalActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: '30 seconds',
});

type ApproveDecision = DecisionBy & { args?: Record<string, unknown> };

/**
 * How a call that needed approval was decided, by whom (`timeout`: its deadline) and when; an
 * approved call has every approval that counted, and its arguments when a person edited them.
 */
export type Decision = { by: string; at: string } & (
  { approved: true; args?: Record<string, unknown>; approvals: ApprovalVote[] } | { approved: false; reason: string }
);

/** A call that waits for approval: who may decide it and what they see (`policy`), and how long it may wait. */
export interface ApprovalRequest {
  callId: string;
  tool: string;
  args: Record<string, unknown>;
  iteration: number;
  policy: ApprovalPolicy;
  /** After this many seconds `onTimeout` decides; none: as long as it takes. */
  timeoutSeconds?: number;
  onTimeout: 'deny' | 'approve';
  /** The tool's sensitive parameters (`ToolInfo.sensitive`): masked in webhooks and audit records. */
  sensitive?: string[];
}

/** What ended a conversation turn's wait. */
export type ConversationTurn = { kind: 'message'; text: string } | { kind: 'end' } | { kind: 'idle' };

/**
 * Everything a run waits on people for (questions, approvals of single calls, conversations; calls
 * of unknown outcome in `outcomes`), with the updates that deliver their answers. Each update is
 * validated before it is accepted: it must match something the run is waiting on, with a non-empty
 * text, or it is rejected with a message that says why, and the run is untouched. The waits are
 * durable: they survive worker restarts and last as long as they need to.
 */
export class HumanGate {
  private readonly answers = new Map<string, string>();
  private readonly decisions = new Map<string, Decision>();
  private incoming: ConversationTurn | undefined;
  /** Told each time the run begins to wait for a person (its webhooks: `Notifier.waiting`). */
  onWait: (waiting: Waiting) => void = () => undefined;
  /** Told of each decision a person (or a deadline) makes, under a key unique in the run (its audit trail). */
  onDecision: (key: string, note: AuditNote) => void = () => undefined;
  /** How many decisions each call has had, for their keys. */
  private readonly decided = new Map<string, number>();
  /** The sensitive parameters of each waiting call's tool (`ApprovalRequest.sensitive`). */
  private readonly sensitive = new Map<string, string[]>();
  /** The `write` calls of unknown outcome the run waits on (outcome-gate.ts). */
  readonly outcomes: OutcomeGate;

  constructor(
    private readonly progress: RunProgress,
    /** Called after the status may have changed (to publish it). */
    private readonly onChange: () => void = () => undefined,
  ) {
    this.outcomes = new OutcomeGate(progress, {
      changed: () => this.refresh(),
      waiting: (waiting) => this.onWait(waiting),
      decided: (key, note) => this.onDecision(key, note),
    });
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
        const by = byOf(decision);
        // A sensitive field left as its mask (what the person saw) keeps its real value.
        const args =
          decision?.args && unmaskArgs(decision.args, this.waitingCall(callId).args, this.sensitive.get(callId));
        if (args) {
          // Edited arguments must suit the tool before the approval counts; the check runs on the worker.
          const problem = await checkToolArguments({ name: this.waitingCall(callId).tool, args });
          if (problem) throw refusal(`${problem}. The call still waits for a decision.`);
          this.requirePendingCall(callId);
          requireMayDecide(this.waitingCall(callId), by, {
            kind: 'approve',
            editing: true,
            startedBy: this.progress.startedBy,
          });
        }
        const call = this.waitingCall(callId);
        const vote = { by, at: workflowTime() };
        if (args) {
          // Edited arguments start the quorum again: every approval counts for the same arguments.
          call.originalArgs ??= call.args;
          call.args = args;
          call.approvals = [vote];
        } else call.approvals.push(vote);
        this.told(call, vote, {
          decision: 'approve',
          args: call.args,
          ...(args ? { edited: true, originalArgs: call.originalArgs } : {}),
          approvals: call.approvals.length,
          quorum: call.quorum,
        });
        if (call.approvals.length >= call.quorum)
          this.decisions.set(callId, {
            approved: true,
            ...vote,
            approvals: [...call.approvals],
            ...(call.originalArgs ? { args: call.args } : {}),
          });
        this.refresh();
        return this.outcome(call);
      },
      {
        validator: (callId: string, decision?: ApproveDecision) => {
          this.requirePendingCall(callId);
          requireDecider(decision);
          const args = decision?.args;
          if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args)))
            throw refusal('The edited arguments must be a JSON object.');
          requireMayDecide(this.waitingCall(callId), byOf(decision), {
            kind: 'approve',
            editing: args !== undefined,
            startedBy: this.progress.startedBy,
          });
        },
      },
    );
    setHandler(
      denyUpdate,
      (callId: string, reason?: string, decision?: DecisionBy) => {
        const why = reason!.trim();
        const call = this.waitingCall(callId);
        const vote = { by: byOf(decision), at: workflowTime() };
        this.decisions.set(callId, { approved: false, reason: why, ...vote });
        this.told(call, vote, { decision: 'deny', args: call.args, reason: why });
        this.refresh();
        return this.outcome(call);
      },
      {
        validator: (callId: string, reason?: string, decision?: DecisionBy) => {
          this.requirePendingCall(callId);
          requireDecider(decision);
          requireMayDecide(this.waitingCall(callId), byOf(decision), { kind: 'deny' });
          if (reason !== undefined && reason !== null && typeof reason !== 'string')
            throw refusal('The reason must be a string.');
          if (typeof reason !== 'string' || reason.trim() === '')
            throw refusal('Say why the call is denied (a reason): the model reads it. The call still waits.');
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
    const { callId, tool, args, iteration, policy, timeoutSeconds, onTimeout, sensitive } = request;
    if (sensitive?.length) this.sensitive.set(callId, sensitive);
    const since = workflowTime();
    const deadline =
      timeoutSeconds === undefined ? undefined : new Date(Date.parse(since) + timeoutSeconds * 1000).toISOString();
    const call: PendingApproval = {
      callId,
      tool,
      args,
      iteration,
      since,
      ...policy,
      approvals: [],
      ...(deadline ? { deadline, onTimeout } : {}),
    };
    this.progress.pendingApprovals.push(call);
    this.refresh();
    const { reason, preview, approvers, quorum } = policy;
    this.onWait({
      event: 'waiting_for_approval',
      key: `${iteration}:${callId}`,
      pending: {
        callId,
        tool,
        args: maskArgs(args, sensitive),
        ...(reason ? { reason } : {}),
        ...(deadline ? { deadline } : {}),
        ...(preview ? { preview } : {}),
        ...(approvers ? { approvers: approvers.label } : {}),
        ...(quorum > 1 ? { quorum } : {}),
      },
    });
    try {
      if (await waitFor(() => this.decisions.has(callId), timeoutSeconds)) return this.decisions.get(callId)!;
      const at = workflowTime();
      this.told(call, { by: 'timeout', at }, { decision: onTimeout, args: call.args, deadline: true });
      return onTimeout === 'approve'
        ? { approved: true, by: 'timeout', at, approvals: [...call.approvals] }
        : {
            approved: false,
            by: 'timeout',
            at,
            reason: `nobody decided within ${Math.round(timeoutSeconds!)} seconds`,
          };
    } finally {
      this.progress.pendingApprovals = this.progress.pendingApprovals.filter((a) => a.callId !== callId);
      this.sensitive.delete(callId);
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

  /**
   * Tells the run's audit trail of one decision of `call`: who, when, and what (`details`), its
   * arguments (`args`, `originalArgs`) with the tool's sensitive values masked.
   */
  private told(call: PendingApproval, vote: ApprovalVote, details: Record<string, unknown>): void {
    const sensitive = this.sensitive.get(call.callId);
    for (const field of ['args', 'originalArgs'])
      if (details[field]) details[field] = maskArgs(details[field] as Record<string, unknown>, sensitive);
    const n = (this.decided.get(call.callId) ?? 0) + 1;
    this.decided.set(call.callId, n);
    const rule = {
      ...(call.reason ? { ruleReason: call.reason } : {}),
      ...(call.approvers ? { approvers: call.approvers.label } : {}),
    };
    this.onDecision(`decision/${call.callId}/${n}`, {
      kind: 'decision',
      at: vote.at,
      person: vote.by,
      tool: call.tool,
      callId: call.callId,
      details: { ...details, ...rule },
    });
  }

  private waitingCall(callId: string): PendingApproval {
    return this.progress.pendingApprovals.find((a) => a.callId === callId)!;
  }

  private outcome(call: PendingApproval): ApprovalOutcome {
    const decided = this.decisions.get(call.callId);
    return {
      callId: call.callId,
      tool: call.tool,
      decided: decided ? (decided.approved ? 'approved' : 'denied') : 'waiting',
      approvals: [...call.approvals],
      quorum: call.quorum,
    };
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
      : this.progress.pendingApprovals.some((a) => !this.decisions.has(a.callId)) || this.outcomes.waiting()
        ? 'waiting_for_approval'
        : this.progress.conversation
          ? 'waiting_for_message'
          : 'running';
  }
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
  return decision?.by?.trim() || UNKNOWN_PERSON;
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
