import { upsertMemo, workflowInfo } from '@temporalio/workflow';
import type { AgentLoopResult, RunProgress } from '../contract/agent-loop';
import { DRY_RUN_MEMO } from '../contract/effects/dry-run';

/**
 * Marks the run as a dry run (docs/effects.md#dry-runs): its progress (the status query, the Web
 * UI's details) and its memo (`waveloop list`, the inbox), which the client sets when it starts
 * one and the run sets here when another client did not.
 */
export function markDryRun(progress: RunProgress): void {
  progress.dryRun = true;
  if (workflowInfo().memo?.[DRY_RUN_MEMO] !== true) upsertMemo({ [DRY_RUN_MEMO]: true });
}

/** A dry run's result says so, and lists every call it held back, in the order of the waves. */
export function heldBackOf({
  dryRun,
  waves,
}: Pick<AgentLoopResult, 'waves'> & { dryRun?: true }): Pick<AgentLoopResult, 'dryRun' | 'heldBack'> {
  if (!dryRun) return {};
  const heldBack = waves.flatMap((wave) =>
    wave.calls
      .filter((call) => call.heldBack)
      .map((call) => ({ iteration: wave.iteration, callId: call.id, tool: call.tool, args: call.args })),
  );
  return { dryRun, heldBack };
}
