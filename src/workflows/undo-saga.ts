import {
  CancellationScope,
  ParentClosePolicy,
  startChild,
  WorkflowIdReusePolicy,
  workflowInfo,
} from '@temporalio/workflow';
import type { ResolvedRun } from '../contract/activity-io';
import type { RunProgress, RunStatus } from '../contract/agent-loop';
import { ranWithEffect, undoCallOf, wavesSoFar } from '../contract/effects/effect-calls';
import {
  UNDO_WORKFLOW,
  undoWorkflowId,
  type UndoCall,
  type UndoInput,
  type UndoResult,
} from '../contract/effects/undo';
import type { undoRun } from './undo';

/** Who the undo of a run with `onFailure: 'undo'` is recorded as asked by. */
export const ON_FAILURE_UNDO_BY = 'onFailure';

/** How a run ended that `onFailure: 'undo'` undoes: failed, cancelled, or stopped by its breaker or its output. */
const UNDONE_ENDS: ReadonlySet<RunStatus | 'failed'> = new Set([
  'failed',
  'cancelled',
  'circuit_open',
  'invalid_output',
]);

/**
 * A saga (docs/effects.md#undo-when-a-run-fails): a run with `onFailure: 'undo'` that ended `status`
 * (failed, cancelled, `circuit_open`, `invalid_output`) undoes the calls of its waves that changed
 * something and succeeded, later first, in an `undoRun` child (`undo:<run>`, asked by `onFailure`)
 * that it waits for, past calls whose tool has no `undo` (they are listed as cannot be undone). Not
 * cancelled with the run: a cancelled run undoes too. The child is in the run's history, and its
 * result and audit record say what was undone. Undefined when there was nothing to do.
 */
export async function undoOnFailure(
  run: ResolvedRun,
  progress: RunProgress,
  status: RunStatus | 'failed',
): Promise<UndoResult | undefined> {
  if (run.settings.onFailure !== 'undo' || !UNDONE_ENDS.has(status)) return undefined;
  const calls = callsToUndo(run, progress);
  if (calls.length === 0) return undefined;
  const { workflowId } = workflowInfo();
  const input: UndoInput = {
    workflowId,
    agent: run.agent,
    calls,
    by: ON_FAILURE_UNDO_BY,
    skipIrreversible: true,
    undoneBefore: [],
  };
  return CancellationScope.nonCancellable(async () => {
    const child = await startChild<typeof undoRun>(UNDO_WORKFLOW, {
      workflowId: undoWorkflowId(workflowId),
      args: [input],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      staticSummary: `undo of ${workflowId} · onFailure (${status})`,
    });
    return child.result();
  });
}

/** The run's calls that changed something and succeeded, later first (as `waveloop undo` takes them). */
function callsToUndo(run: ResolvedRun, progress: RunProgress): UndoCall[] {
  const tools = new Map(run.tools.map((tool) => [tool.name, tool]));
  return wavesSoFar(progress)
    .flatMap((wave) =>
      wave.calls.flatMap((call): UndoCall[] => {
        const tool = tools.get(call.tool);
        return tool && call.ok && ranWithEffect(call, tool) ? [undoCallOf(wave.iteration, call, tool)] : [];
      }),
    )
    .reverse();
}
