import { ActivityFailure, isCancellation, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { createActivities } from '../activities';
import { toolHeartbeatTimeout } from '../contract/activity-options';
import { undoEntryOf, type UndoCall, type UndoEntry, type UndoInput, type UndoResult } from '../contract/effects/undo';
import { FailureType } from '../contract/errors';
import type { ApprovalPolicy } from '../contract/people/approvals';
import { maskArgs } from '../contract/sensitive';
import { AuditTrail } from './audit-trail';
import { HumanGate, type Decision } from './human-gate';
import { Notifier } from './notices';
import { UndoProgress } from './undo-progress';

type Activities = ReturnType<typeof createActivities>;

const { undoCall } = proxyActivities<Activities>({ startToCloseTimeout: '1 minute' });
const { undoSetup } = proxyActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 5 } });
const { prepareApproval } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 3 },
});

/**
 * `undoRun` (docs/effects.md#undo): reverses the calls of an agent run in the order it is given them
 * (later iterations first, within a wave the later call first), each by an `undoCall` activity that
 * runs the tool's `undo`, with the tool's timeout and retries. A call whose tool has no `undo` is
 * listed as one that cannot be undone, and the undo stops there (the rest listed as not reached)
 * unless `skipIrreversible` says to go past it. A call whose undo still fails after its retries is
 * listed as failed, and the undo goes on with the next. The result lists each, and every call undone
 * so far (this undo's and the earlier ones'), which the next undo of the run reads, so no call is
 * undone twice. A worker that dies mid-undo leaves the undos completed so far in the history: the
 * next worker replays them and does not run them again. Where the worker keeps an audit trail, the
 * undo writes one `undo` record with who asked for it.
 *
 * The undo of a call that waited for approval in its run waits for approval too (an undo of a
 * payment is itself a payment), as a run's call does (`HumanGate`): the tool's rule says who may
 * decide it, under four eyes the asker may not, each decision goes to the audit trail, and the
 * worker's webhooks are told of the wait. A denied undo is listed as denied, and the undo goes on
 * with the next call.
 */
export async function undoRun(input: UndoInput): Promise<UndoResult> {
  const info = workflowInfo();
  const shown = new UndoProgress(input);
  const gate = new HumanGate(shown.progress, () => shown.publish());
  const { audit, searchAttributes, webhooks, heartbeatSeconds } = await undoSetup();
  shown.searchAttributes = searchAttributes ?? false;
  shown.publish();
  const trail = new AuditTrail(audit);
  gate.onDecision = (key, note) => trail.record(key, note);
  // The worker's webhooks hear of each undo that waits for approval, as of a run's call.
  const notifier = new Notifier(webhooks ?? [], `Undo of ${input.workflowId}`, input.by);
  gate.onWait = (waiting) => notifier.waiting(waiting);
  const result: UndoResult = {
    workflowId: input.workflowId,
    undoId: info.workflowId,
    undoRunId: info.runId,
    by: input.by,
    ...(input.toIteration === undefined ? {} : { toIteration: input.toIteration }),
    skipIrreversible: input.skipIrreversible ?? false,
    undone: [],
    cannotUndo: [],
    failed: [],
    denied: [],
    notReached: [],
    undoneSoFar: [...input.undoneBefore],
  };
  for (const [index, call] of input.calls.entries()) {
    const entry = undoEntryOf(call);
    if (!call.undoable) {
      result.cannotUndo.push(entry);
      if (input.skipIrreversible) continue;
      result.stoppedAt = entry;
      result.notReached = input.calls.slice(index + 1).map(undoEntryOf);
      break;
    }
    let args = call.args;
    if (call.needsApproval) {
      const decision = await approval(gate, input, call);
      if (!decision.approved) {
        entry.denied = { by: decision.by, reason: decision.reason };
        result.denied.push(entry);
        continue;
      }
      entry.approvedBy = decision.approvals.map((vote) => vote.by);
      if (!entry.approvedBy.length) entry.approvedBy = [decision.by];
      args = decision.args ?? call.args;
    }
    try {
      entry.undoResult = await undoOne(input, { ...call, args }, heartbeatSeconds * 1000);
      result.undone.push(entry);
      result.undoneSoFar.push({
        callId: call.callId,
        tool: call.tool,
        iteration: call.iteration,
        by: input.by,
        undoRunId: info.runId,
        at: new Date().toISOString(),
        ...(entry.approvedBy ? { approvedBy: entry.approvedBy } : {}),
      });
    } catch (err) {
      entry.error = err instanceof ActivityFailure && err.cause ? err.cause.message : String(err);
      result.failed.push(entry);
    }
  }
  trail.record('undo', {
    kind: 'undo',
    at: new Date().toISOString(),
    person: input.by,
    details: {
      run: input.workflowId,
      ...(input.toIteration === undefined ? {} : { toIteration: input.toIteration }),
      undone: result.undone.map(brief),
      cannotUndo: result.cannotUndo.map(brief),
      failed: result.failed.map((entry) => ({ ...brief(entry), error: entry.error })),
      denied: result.denied.map((entry) => ({ ...brief(entry), ...entry.denied })),
      notReached: result.notReached.map(brief),
    },
  });
  await trail.settle();
  await notifier.settle();
  shown.finish();
  return result;
}

/**
 * The undo of `call` waits for a person, as the call did in its run: who may decide it and what they
 * see is the tool's approval rule's, asked again with the undo's asker as the one who started it
 * (`prepareApproval`); when the worker cannot say, anyone but the asker may decide.
 */
async function approval(gate: HumanGate, input: UndoInput, call: UndoCall): Promise<Decision> {
  const summary = `${undoSummary(call)} · waits for approval`;
  let policy: ApprovalPolicy;
  try {
    policy = withoutPreview(
      await prepareApproval.executeWithOptions({ summary }, [
        {
          workflowId: input.workflowId,
          toolCallId: call.callId,
          name: call.tool,
          args: call.args,
          agent: input.agent ?? '',
          startedBy: input.by,
        },
      ]),
    );
  } catch (err) {
    if (isCancellation(err)) throw err;
    const why = err instanceof ActivityFailure && err.cause ? err.cause.message : String(err);
    policy = { reason: `who decides could not be settled (${why})`, quorum: 1, fourEyes: true };
  }
  const description = `Its undo reverses this call of ${call.tool}${policy.description ? ` (${policy.description})` : ''}.`;
  const reason = `Undo of ${call.tool} (${call.callId}, iteration ${call.iteration}) of ${input.workflowId}, which waited for approval when it ran${policy.reason ? `: ${policy.reason}` : ''}`;
  return gate.approval({
    callId: call.callId,
    tool: call.tool,
    args: call.args,
    iteration: call.iteration,
    policy: { ...policy, description, reason },
    timeoutSeconds: call.needsApproval?.timeoutSeconds,
    onTimeout: call.needsApproval?.onTimeout ?? 'deny',
    ...(call.sensitive ? { sensitive: call.sensitive } : {}),
  });
}

/** The policy without its preview: the tool's preview shows what the call would change, not what its undo would. */
function withoutPreview({ preview: _preview, ...policy }: ApprovalPolicy): ApprovalPolicy {
  return policy;
}

/** One call's undo as an activity, with the tool's timeout and retries and the worker's heartbeat timeout. */
function undoOne(input: UndoInput, call: UndoCall, heartbeatMs: number): Promise<string> {
  const startToCloseTimeout = call.timeoutSeconds * 1000;
  return undoCall.executeWithOptions(
    {
      summary: undoSummary(call),
      startToCloseTimeout,
      heartbeatTimeout: toolHeartbeatTimeout(startToCloseTimeout, heartbeatMs),
      retry: {
        maximumAttempts: call.retry.maximumAttempts,
        initialInterval: call.retry.initialIntervalSeconds * 1000,
        backoffCoefficient: call.retry.backoffCoefficient,
        maximumInterval: call.retry.maximumIntervalSeconds * 1000,
        nonRetryableErrorTypes: [FailureType.InvalidToolArguments, FailureType.ToolError],
      },
    },
    [
      {
        workflowId: input.workflowId,
        callId: call.callId,
        tool: call.tool,
        args: call.args,
        result: call.result,
        by: input.by,
      },
    ],
  );
}

/** What the Web UI shows of a call's undo: `undo · iteration 2 · update_customer(…)`, sensitive values masked. */
function undoSummary(call: UndoCall): string {
  const args = JSON.stringify(maskArgs(call.args, call.sensitive));
  return `undo · iteration ${call.iteration} · ${call.tool}(${args.length > 80 ? `${args.slice(0, 79)}…` : args})`;
}

/** A call as the audit record names it. */
function brief(entry: UndoEntry) {
  return { iteration: entry.iteration, callId: entry.callId, tool: entry.tool, args: entry.args };
}
