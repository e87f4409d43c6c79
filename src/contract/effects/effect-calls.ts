/**
 * Which calls of a run changed something, as the effect ledger, `waveloop undo` and a run that undoes
 * itself (`onFailure: 'undo'`) all read them. No zod and no I/O here: workflow code imports it.
 */

import type { ToolInfo } from '../activity-io';
import type { RunProgress, ToolCallRecord, WaveRecord } from '../agent-loop';
import { DEFAULT_EFFECT } from './effect';
import type { UndoCall } from './undo';

/** A run's waves so far: the settled ones, then the calls of the one still settling. */
export function wavesSoFar(progress: Pick<RunProgress, 'waves' | 'settling'>): WaveRecord[] {
  return [...progress.waves, ...(progress.settling ? [progress.settling] : [])];
}

/** Whether a call ran and its tool is not `read` (not a call a person denied or a dry run held back). */
export function ranWithEffect(call: ToolCallRecord, tool: Pick<ToolInfo, 'effect'>): boolean {
  if (call.approval?.decision === 'denied' || ('heldBack' in call && call.heldBack)) return false;
  return (tool.effect ?? DEFAULT_EFFECT) !== 'read';
}

/**
 * A call of iteration `iteration` as an undo takes it: arguments in clear, its tool's timeout and
 * retries, and, when the call waited for approval, that its undo waits too (with the tool's deadline).
 */
export function undoCallOf(iteration: number, call: ToolCallRecord, tool: ToolInfo): UndoCall {
  return {
    iteration,
    callId: call.id,
    tool: call.tool,
    args: call.args,
    result: call.result ?? '',
    undoable: tool.undo === true,
    ...(tool.sensitive?.length ? { sensitive: tool.sensitive } : {}),
    timeoutSeconds: tool.timeoutSeconds,
    retry: tool.retry,
    ...(call.approval
      ? {
          needsApproval: {
            ...(tool.approval?.timeoutSeconds === undefined ? {} : { timeoutSeconds: tool.approval.timeoutSeconds }),
            onTimeout: tool.approval?.onTimeout ?? 'deny',
          },
        }
      : {}),
  };
}
