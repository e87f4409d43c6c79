import { WorkflowUpdateFailedError } from '@temporalio/client';
import { recordRefusal } from '../audit/refusals';
import type { AuditStore } from '../audit/store';
import type { RunsClient } from '../client/runs';
import type { OutcomeChoice, OutcomeSettled } from '../contract/effects/outcome';
import type { ApprovalOutcome } from '../contract/messages';
import { HttpError, toHttpError } from './errors';
import { requireRunning, requireWaiting } from './run-state';

/**
 * What a person decides, as the API and the inbox page take it: each checks the run first (404 for
 * an unknown run or call, 409 for one that ended or no longer waits) and throws an `HttpError` that
 * says what is wrong. `by` is the name of the token the request came with.
 */

/** An approval (with edited `args`, maybe) or a denial (with a `reason`, maybe). */
export interface ApprovalDecision {
  approve: boolean;
  reason?: string;
  args?: Record<string, unknown>;
}

/**
 * Approves or denies call `callId`. A decision `by` may not make (not among the call's approvers,
 * or the run's starter under four eyes) is a 403, edited arguments that do not suit the tool and a
 * denial without a reason a 400, and each leaves the call waiting; a call decided by someone else meanwhile is a 409.
 */
export async function decideApproval(
  runs: RunsClient,
  workflowId: string,
  callId: string,
  { approve, reason, args }: ApprovalDecision,
  by: string,
  audit?: AuditStore,
): Promise<ApprovalOutcome> {
  await requireWaiting(runs, workflowId, callId, 'approval');
  try {
    return approve
      ? await runs.approve(workflowId, callId, { by, ...(args ? { args } : {}) })
      : await runs.deny(workflowId, callId, { by, ...(reason !== undefined ? { reason } : {}) });
  } catch (err) {
    const forbidden = err instanceof WorkflowUpdateFailedError && toHttpError(err, () => undefined).status === 403;
    if (forbidden && audit) {
      const why = err.cause?.message ?? err.message;
      await recordRefusal(audit, { workflowId, callId, person: by, decision: approve ? 'approve' : 'deny', why });
    }
    const refused = err instanceof WorkflowUpdateFailedError && !forbidden;
    if (refused && !approve && !reason?.trim())
      throw new HttpError(400, 'bad_request', 'Say why the call is denied (a reason): the model reads it.');
    if (refused && args) {
      const progress = await runs.progress(workflowId, { quick: true }).catch(() => undefined);
      if (progress?.pendingApprovals.some((call) => call.callId === callId))
        throw new HttpError(400, 'bad_request', `Refused: ${err.cause?.message ?? err.message}`);
    }
    throw err;
  }
}

/**
 * Settles call `callId`, a `write` call that may or may not have run: it `happened` (with the result
 * the model reads), run it `again`, or `give_up`. A decider not among the call's approvers is a 403
 * (recorded as refused in the audit trail), and the call waits on.
 */
export async function settleOutcome(
  runs: RunsClient,
  workflowId: string,
  callId: string,
  { choice, result }: { choice: OutcomeChoice; result?: string },
  by: string,
  audit?: AuditStore,
): Promise<OutcomeSettled> {
  await requireWaiting(runs, workflowId, callId, 'outcome');
  try {
    return await runs.settleOutcome(workflowId, callId, { choice, by, ...(result !== undefined ? { result } : {}) });
  } catch (err) {
    const forbidden = err instanceof WorkflowUpdateFailedError && toHttpError(err, () => undefined).status === 403;
    if (forbidden && audit) {
      const why = err.cause?.message ?? err.message;
      await recordRefusal(audit, { workflowId, callId, person: by, decision: choice, why });
    }
    throw err;
  }
}

/** Answers question `callId`, which must be the first the run waits on. */
export async function answerQuestion(
  runs: RunsClient,
  workflowId: string,
  callId: string,
  answer: string,
): Promise<{ callId: string; question: string }> {
  await requireWaiting(runs, workflowId, callId, 'question');
  return runs.answer(workflowId, answer);
}

/** Sends a conversation's next message. */
export async function sendMessage(runs: RunsClient, workflowId: string, text: string): Promise<void> {
  await requireRunning(runs, workflowId);
  await runs.send(workflowId, text);
}

/** Ends a conversation: the run completes with its last answer. */
export async function endConversation(runs: RunsClient, workflowId: string): Promise<void> {
  await requireRunning(runs, workflowId);
  await runs.end(workflowId);
}
