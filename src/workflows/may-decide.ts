import { ApplicationFailure, workflowInfo } from '@temporalio/workflow';
import type { PendingApproval } from '../contract/agent-loop';
import { UNDO_WORKFLOW } from '../contract/effects/undo';
import { FailureType } from '../contract/errors';
import { quorumProgress, UNKNOWN_PERSON } from '../contract/people/approvals';

/** What a decision is: a denial, or an approval (with edited arguments, maybe) in a run its starter started. */
export type DecisionKind = { kind: 'deny' } | { kind: 'approve'; editing: boolean; startedBy: string };

/**
 * Refuses a decision `by` may not make on `call` (the call waits on, untouched): someone not among
 * the call's approvers; under four eyes, the person who started the run (of an undo: who asked for
 * it) approving, or an approval
 * that does not say who gives it; and a second approval by one person (`editing`: an approval with
 * edited arguments, which starts the quorum again, is not a second one). The run's update
 * validators call it, so no client can skip it.
 */
export function requireMayDecide(call: PendingApproval, by: string, decision: DecisionKind): void {
  const { approvers, tool } = call;
  if (approvers && !approvers.names.includes(by))
    throw notAllowed(
      by === UNKNOWN_PERSON
        ? `This call of ${tool} needs ${approvers.label}: say who decides (by).`
        : `${by} may not decide this call of ${tool}: it needs ${approvers.label}.`,
    );
  if (decision.kind === 'deny') return;
  if (call.fourEyes && by === UNKNOWN_PERSON)
    throw notAllowed(
      `This call of ${tool} needs four eyes: say who approves (by), who must not be who started the run.`,
    );
  if (call.fourEyes && by === decision.startedBy)
    throw notAllowed(
      workflowInfo().workflowType === UNDO_WORKFLOW
        ? `${by} asked for this undo and may not approve its undo of ${tool} (four eyes).`
        : `${by} started this run and may not approve its calls of ${tool} (four eyes).`,
    );
  if (!decision.editing && call.approvals.some((vote) => vote.by === by))
    throw refusal(
      `${by} has already approved this call of ${tool} (${quorumProgress(call.approvals, call.quorum)}); it needs ${call.quorum - call.approvals.length} more.`,
    );
}

/** An update refused: from a validator or a handler alike, it fails the update, not the run. */
export function refusal(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: FailureType.InvalidInput, message, nonRetryable: true });
}

/** A decision its decider may not make: from a validator, it fails the update, not the run. */
function notAllowed(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: FailureType.DecisionNotAllowed, message, nonRetryable: true });
}
