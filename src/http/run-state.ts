import type { RunsClient } from '../client/runs';
import { wavesSoFar } from '../contract/effects/effect-calls';
import { HttpError } from './errors';

/**
 * The checks before a decision, so that its status says what is wrong: 404 for a run or call that
 * does not exist, 409 for a run that has ended or a call that no longer waits. They read the run as
 * it is now; two decisions of one call at once both pass them, and the workflow refuses the second
 * (a refused update, 409).
 */

/** Throws 404 (no such run) or 409 (it has ended) unless the run is running. */
export async function requireRunning(runs: RunsClient, workflowId: string): Promise<void> {
  const description = await runs.handle(workflowId).describe();
  if (description.status.name !== 'RUNNING')
    throw new HttpError(409, 'conflict', `Run ${workflowId} has ended (${description.status.name.toLowerCase()}).`);
}

/**
 * Throws unless call `callId` of the run waits for `kind` (an approval, an answer, or its outcome to be
 * settled): 404 when the run has no such call, 409 when the call has been decided. When the run does
 * not answer its status query (no worker now), the decision goes ahead and says so itself.
 */
export async function requireWaiting(
  runs: RunsClient,
  workflowId: string,
  callId: string,
  kind: 'approval' | 'question' | 'outcome',
): Promise<void> {
  await requireRunning(runs, workflowId);
  const progress = await runs.progress(workflowId, { quick: true }).catch(() => undefined);
  if (!progress) return;
  if (kind === 'outcome') {
    if ((progress.pendingOutcomes ?? []).some((call) => call.callId === callId)) return;
    if (await isSettled(runs, workflowId, callId))
      throw new HttpError(409, 'conflict', `Call ${callId} of run ${workflowId} is not waiting: it has been settled.`);
    throw new HttpError(404, 'not_found', `Run ${workflowId} has no call ${callId} of unknown outcome waiting.`);
  }
  const waiting = kind === 'approval' ? progress.pendingApprovals : progress.pendingQuestions;
  const index = waiting.findIndex((call) => call.callId === callId);
  if (index === 0 || (index > 0 && kind === 'approval')) return;
  if (index > 0)
    throw new HttpError(
      409,
      'conflict',
      `Answer question ${waiting[0]!.callId} first: the run takes its questions in order.`,
    );
  if (await isSettled(runs, workflowId, callId))
    throw new HttpError(409, 'conflict', `Call ${callId} of run ${workflowId} is not waiting: it has been decided.`);
  const other = kind === 'approval' ? progress.pendingQuestions : progress.pendingApprovals;
  if (other.some((call) => call.callId === callId))
    throw new HttpError(
      409,
      'conflict',
      `Call ${callId} waits for ${kind === 'approval' ? 'an answer' : 'an approval'}, not this.`,
    );
  throw new HttpError(404, 'not_found', `Run ${workflowId} has no call ${callId} waiting.`);
}

/** Whether call `callId` has settled (or is being decided). */
async function isSettled(runs: RunsClient, workflowId: string, callId: string): Promise<boolean> {
  const progress = await runs.progress(workflowId, { quick: true });
  const waves = wavesSoFar(progress);
  if (waves.some((wave) => wave.calls.some((call) => call.id === callId))) return true;
  // Approved or answered a moment ago: no longer listed as waiting, not settled yet.
  return (await runs.decisions(workflowId)).some(
    (update) => update.args[0] === callId || (update.result as { callId?: string } | undefined)?.callId === callId,
  );
}
