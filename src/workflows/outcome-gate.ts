import { ApplicationFailure, condition, setHandler } from '@temporalio/workflow';
import type { RunProgress } from '../contract/agent-loop';
import {
  OUTCOME_CHOICES,
  outcomeUpdate,
  unknownOutcomeLine,
  type OutcomeDecision,
  type PendingOutcome,
} from '../contract/effects/outcome';
import { FailureType } from '../contract/errors';
import { UNKNOWN_PERSON } from '../contract/people/approvals';
import { maskArgs } from '../contract/sensitive';
import type { AuditNote } from './audit-trail';
import { refusal } from './may-decide';
import type { Waiting } from './notices';

/** What a person said of a call that may have acted: the choice, its result when it happened, who, when. */
export interface SettledOutcome {
  choice: OutcomeDecision['choice'];
  result?: string;
  by: string;
  at: string;
}

/** A `write` call whose attempt may have acted: what waits, and its tool's sensitive parameters. */
export type OutcomeRequest = Omit<PendingOutcome, 'since'> & { sensitive?: string[] };

/** What the gate tells the run: its status may have changed, it waits, a person decided. */
export interface OutcomeHooks {
  changed(): void;
  waiting(waiting: Waiting): void;
  decided(key: string, note: AuditNote): void;
}

/**
 * The calls of unknown outcome a run waits on (docs/effects.md#unknown-outcomes), with the `outcome`
 * update that settles them: it happened (with the result the model reads), run it again, or give up.
 * The update is validated before it is accepted: a call that does not wait so, a choice that is not
 * one of the three, a result with another choice, and (`DecisionNotAllowed`) a decider not among the
 * call's approvers are refused, and the call waits on. The wait is durable and has no deadline.
 */
export class OutcomeGate {
  private readonly settled = new Map<string, SettledOutcome>();
  /** How many times each call has waited so, for the keys of its notices and records. */
  private readonly asked = new Map<string, number>();

  constructor(
    private readonly progress: RunProgress,
    private readonly hooks: OutcomeHooks,
  ) {
    setHandler(
      outcomeUpdate,
      (callId: string, decision: OutcomeDecision) => {
        const call = this.waitingCall(callId)!;
        const by = decision.by?.trim() || UNKNOWN_PERSON;
        const at = new Date().toISOString();
        const result = decision.choice === 'happened' ? decision.result?.trim() || undefined : undefined;
        this.settled.set(callId, { choice: decision.choice, ...(result ? { result } : {}), by, at });
        this.hooks.decided(`outcome/${callId}/${this.asked.get(callId) ?? 1}`, {
          kind: 'decision',
          at,
          person: by,
          tool: call.tool,
          callId,
          details: {
            decision: decision.choice,
            outcome: 'unknown',
            why: call.why,
            args: call.args,
            ...(result ? { result } : {}),
            ...(call.approvers ? { approvers: call.approvers.label } : {}),
          },
        });
        this.hooks.changed();
        return { callId, tool: call.tool, choice: decision.choice };
      },
      { validator: (callId: string, decision: OutcomeDecision) => this.check(callId, decision) },
    );
  }

  /** Whether a call of unknown outcome waits for a person (the run then waits for a decision). */
  waiting(): boolean {
    return (this.progress.pendingOutcomes ?? []).some((call) => !this.settled.has(call.callId));
  }

  /** Waits, durably and as long as it takes, for a person to say what became of `request`'s call. */
  async ask(request: OutcomeRequest): Promise<SettledOutcome> {
    const { sensitive, ...call } = request;
    const n = (this.asked.get(call.callId) ?? 0) + 1;
    this.asked.set(call.callId, n);
    // People see the call's sensitive values masked; the tool, if it runs again, gets them whole.
    const args = maskArgs(call.args, sensitive);
    (this.progress.pendingOutcomes ??= []).push({ ...call, args, since: new Date().toISOString() });
    this.hooks.changed();
    this.hooks.waiting({
      event: 'waiting_for_approval',
      key: `${call.iteration}:${call.callId}:outcome:${n}`,
      pending: {
        callId: call.callId,
        tool: call.tool,
        args,
        unknownOutcome: true,
        reason: `${unknownOutcomeLine(call.tool, args)} (${call.why}): it happened, run it again, or give up`,
        ...(call.approvers ? { approvers: call.approvers.label } : {}),
      },
    });
    try {
      await condition(() => this.settled.has(call.callId));
      return this.settled.get(call.callId)!;
    } finally {
      this.settled.delete(call.callId);
      const left = (this.progress.pendingOutcomes ?? []).filter((p) => p.callId !== call.callId);
      if (left.length) this.progress.pendingOutcomes = left;
      else delete this.progress.pendingOutcomes;
      this.hooks.changed();
    }
  }

  private waitingCall(callId: string): PendingOutcome | undefined {
    return this.progress.pendingOutcomes?.find((call) => call.callId === callId && !this.settled.has(callId));
  }

  private check(callId: unknown, decision: unknown): void {
    if (typeof callId !== 'string' || callId.trim() === '')
      throw refusal('Name the tool call whose outcome you settle (its call id).');
    const call = this.waitingCall(callId);
    if (!call) {
      const open = (this.progress.pendingOutcomes ?? []).filter((p) => !this.settled.has(p.callId));
      const waiting = open.length ? ` (waiting: ${open.map((p) => p.callId).join(', ')})` : '';
      throw refusal(`No call ${callId} waits for its outcome to be settled${waiting}.`);
    }
    if (typeof decision !== 'object' || decision === null || Array.isArray(decision))
      throw refusal('The decision must be an object: { choice, result?, by? }.');
    const { choice, result, by } = decision as Record<string, unknown>;
    if (!(OUTCOME_CHOICES as readonly unknown[]).includes(choice))
      throw refusal(`The choice must be one of ${OUTCOME_CHOICES.join(', ')}.`);
    if (result !== undefined && typeof result !== 'string') throw refusal('The result must be a string.');
    if (result !== undefined && choice !== 'happened')
      throw refusal('Only a call that happened has a result: give it with the choice "happened".');
    if (by !== undefined && (typeof by !== 'string' || by.trim() === ''))
      throw refusal('The decider (by) must be a non-empty name.');
    const who = (by as string | undefined)?.trim() || UNKNOWN_PERSON;
    const { approvers } = call;
    if (approvers && !approvers.names.includes(who))
      throw ApplicationFailure.create({
        type: FailureType.DecisionNotAllowed,
        nonRetryable: true,
        message:
          who === UNKNOWN_PERSON
            ? `This call of ${call.tool} needs ${approvers.label}: say who decides (by).`
            : `${who} may not settle this call of ${call.tool}: it needs ${approvers.label}.`,
      });
  }
}
