import { ActivityFailure, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { createActivities } from '../activities';
import { TOOL_HEARTBEAT_TIMEOUT_MS } from '../contract/activity-options';
import { undoEntryOf, type UndoCall, type UndoEntry, type UndoInput, type UndoResult } from '../contract/effects/undo';
import { FailureType } from '../contract/errors';
import { maskArgs } from '../contract/sensitive';
import { AuditTrail } from './audit-trail';

type Activities = ReturnType<typeof createActivities>;

const { undoCall } = proxyActivities<Activities>({ startToCloseTimeout: '1 minute' });
const { undoSetup } = proxyActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 5 } });

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
 */
export async function undoRun(input: UndoInput): Promise<UndoResult> {
  const info = workflowInfo();
  const { audit } = await undoSetup();
  const trail = new AuditTrail(audit);
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
    try {
      entry.undoResult = await undoOne(input, call);
      result.undone.push(entry);
      result.undoneSoFar.push({
        callId: call.callId,
        tool: call.tool,
        iteration: call.iteration,
        by: input.by,
        undoRunId: info.runId,
        at: new Date().toISOString(),
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
      notReached: result.notReached.map(brief),
    },
  });
  await trail.settle();
  return result;
}

/** One call's undo as an activity, with the tool's timeout, heartbeat timeout and retries. */
function undoOne(input: UndoInput, call: UndoCall): Promise<string> {
  const startToCloseTimeout = call.timeoutSeconds * 1000;
  const args = JSON.stringify(maskArgs(call.args, call.sensitive));
  return undoCall.executeWithOptions(
    {
      summary: `undo · iteration ${call.iteration} · ${call.tool}(${args.length > 80 ? `${args.slice(0, 79)}…` : args})`,
      startToCloseTimeout,
      heartbeatTimeout: Math.min(startToCloseTimeout, TOOL_HEARTBEAT_TIMEOUT_MS),
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

/** A call as the audit record names it. */
function brief(entry: UndoEntry) {
  return { iteration: entry.iteration, callId: entry.callId, tool: entry.tool, args: entry.args };
}
